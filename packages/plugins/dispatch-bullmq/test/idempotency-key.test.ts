import { describe, expect, it } from 'vitest'
import { jobIdFor } from '@deepseek-ai/dsh-dispatch-bullmq'
import { caller, codeOf, input, localWorker, uniqueQueue, waitForEntries } from './support/harness.ts'

const effects = (scope: string) => Object.freeze({ idempotencyScope: scope })

describe('T52: the BullMQ job id is the idempotency key', () => {
  it('T52: the job is stored under jobIdFor(exec.idempotencyKey) and the worker’s body sees the same key', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute } = await caller(queue)
    const call = input('echo', { value: 'v' }, { effects: effects('sess-1') })
    expect(codeOf(await execute(call))).toBe('OK')
    expect(await rec.redis.lrange(`${queue}:keys`, 0, -1)).toEqual([`sess-1:${call.callId}`])
    const jobId = jobIdFor(`sess-1:${call.callId}`, undefined)
    expect(jobId).toMatch(/^call-sess-1%3A/) // the key's `:` escaped, as BullMQ refuses it in ids
    expect(await rec.redis.exists(`bull:${queue}:${jobId}`)).toBe(1)
  })

  it('T52: equal call ids of two sessions are two jobs, each run once (no namespace needed)', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute } = await caller(queue)
    const a = await execute({ ...input('echo', { value: 'a' }), callId: 'call_1', effects: effects('sa') })
    const b = await execute({ ...input('echo', { value: 'b' }), callId: 'call_1', effects: effects('sb') })
    expect([a, b].map((r) => (r.isError ? r.error.message : r.value))).toEqual(['a', 'b'])
    expect(await rec.redis.lrange(`${queue}:keys`, 0, -1)).toEqual(['sa:call_1', 'sb:call_1'])
  })

  it('T52: a resumed caller re-attaches to the running job instead of enqueuing another; a later one gets the stored outcome', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const crashed = await caller(queue)
    const call = input('wait', { id: 'w' }, { effects: effects('sess-r') })
    // the first caller's call is running on the worker when that caller "dies" (it never reads its answer)
    void crashed.execute(call)
    await waitForEntries(rec, 'started', 1)
    const resumed = await caller(queue)
    const attached = resumed.execute(call)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await rec.redis.rpush(`${queue}:release:w`, 'go')
    const result = await attached
    expect(result).toMatchObject({ isError: false, value: 'released w' })
    // and long after: another process resuming the same call is answered from the stored job
    const later = await caller(queue)
    expect(await later.execute(call)).toEqual(result)
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${call.callId}@local`])
  })

  it('T64: a re-attaching call (effects.reattachOnly) is answered with the stored outcome and enqueues nothing; with no job kept under its key it is INTERRUPTED (JobLost)', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute } = await caller(queue)
    const call = input('increment', {}, { effects: effects('sess-a') })
    const first = await execute(call)
    expect(first).toMatchObject({ isError: false, value: 1 })
    const again = await execute({
      ...call,
      effects: Object.freeze({ idempotencyScope: 'sess-a', reattachOnly: true }),
    })
    expect(again).toEqual(first)
    expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBe('1')

    const unsent = input(
      'increment',
      {},
      { effects: Object.freeze({ idempotencyScope: 'sess-a', reattachOnly: true }) },
    )
    const lost = await execute(unsent)
    expect(lost).toMatchObject({ isError: true, error: { info: { code: 'INTERRUPTED', name: 'JobLost' } } })
    expect(lost.isError && lost.error.message).toMatch(/no job is kept under its key/)
    expect(await rec.redis.exists(`bull:${queue}:${jobIdFor(`sess-a:${unsent.callId}`, undefined)}`)).toBe(0)
    expect(await rec.redis.get(`${queue}:count:${unsent.callId}`)).toBeNull()
  })
})
