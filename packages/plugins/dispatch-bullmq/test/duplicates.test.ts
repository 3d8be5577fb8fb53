import { describe, expect, it } from 'vitest'
import { caller, codeOf, input, localWorker, nameOf, uniqueQueue } from './support/harness.ts'

describe('duplicate delivery: the call id is the job id', () => {
  it('D5: the same call delivered twice, one after the other, runs its body once; both get its result', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const first = await caller(queue)
    const second = await caller(queue)
    const call = input('increment', {})
    const a = await first.execute(call)
    const b = await second.execute(call)
    expect(a).toEqual({ isError: false, content: [{ type: 'text', text: '1' }], value: 1 })
    expect(b).toEqual(a)
    expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBe('1')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${call.callId}@local`])
  })

  it('D5: the same call delivered by two processes at once runs once', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue, 'w1')
    await localWorker(queue, 'w2')
    const callers = await Promise.all([caller(queue), caller(queue), caller(queue)])
    const calls = Array.from({ length: 10 }, () => input('increment', {}))
    const results = await Promise.all(callers.flatMap((c) => calls.map((call) => c.execute(call))))
    expect(results.map(codeOf)).toEqual(Array(30).fill('OK'))
    expect(results.every((r) => !r.isError && r.value === 1)).toBe(true)
    for (const call of calls) expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBe('1')
    expect(await rec.redis.llen(`${queue}:started`)).toBe(10)
  })

  it('D5: a call id already taken by a different call is refused (CallIdReused), never answered with the other’s result', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const { execute } = await caller(queue)
    const first = input('echo', { value: 'one' })
    expect(codeOf(await execute(first))).toBe('OK')
    const reused = { ...input('echo', { value: 'two' }), callId: first.callId }
    const result = await execute(reused)
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(nameOf(result)).toBe('CallIdReused')
  })

  it('D5: a namespace keeps equal call ids of different sessions apart', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const a = await caller(queue, { namespace: 'session-a' })
    const b = await caller(queue, { namespace: 'session-b' })
    const ra = await a.execute({ ...input('echo', { value: 'a' }), callId: 'call_1' })
    const rb = await b.execute({ ...input('echo', { value: 'b' }), callId: 'call_1' })
    expect([ra, rb].map((r) => (r.isError ? r.error.message : r.value))).toEqual(['a', 'b'])
  })
})
