import { describe, expect, it } from 'vitest'
import { caller, codeOf, input, localWorker, nameOf, uniqueQueue, waitForEntries } from './support/harness.ts'

describe('the caller’s abort and timeout reach the worker', () => {
  it('D3/T38: an abort from the caller aborts the running body on the worker; the call is ABORTED', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute } = await caller(queue, {}, { abortGraceMs: 5_000 })
    const controller = new AbortController()
    const call = input('wait', { id: 'x' }, { signal: controller.signal })
    const pending = execute(call)
    await waitForEntries(rec, 'started', 1)
    controller.abort()
    const result = await pending
    expect(codeOf(result)).toBe('ABORTED')
    // within the grace the worker's body saw its signal and stopped; its outcome was delivered
    expect(await rec.redis.lrange(`${queue}:aborted`, 0, -1)).toEqual([`${call.callId}@local`])
  })

  it('D3/T17: the caller’s timeout aborts the body on the worker; the call is TIMEOUT, the body’s end a late outcome', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { ctx, execute } = await caller(queue, {}, { defaultTimeoutMs: 400 })
    const late = new Promise<unknown>((resolve) =>
      ctx.on('tools/late-outcome', (outcome) => resolve(outcome)),
    )
    const call = input('wait', { id: 'y' })
    const result = await execute(call)
    expect(codeOf(result)).toBe('TIMEOUT')
    expect(await waitForEntries(rec, 'aborted', 1)).toEqual([`${call.callId}@local`])
    expect(await late).toEqual({ kind: 'error', message: 'aborted' })
  })

  it('D3/T16: a call aborted while its job is still queued is ABORTED_BEFORE_DISPATCH, and no worker ever runs it', async () => {
    const queue = uniqueQueue()
    const { execute } = await caller(queue)
    const controller = new AbortController()
    const call = input('increment', {}, { signal: controller.signal })
    const pending = execute(call)
    // no worker yet: the job waits in the queue; abort once it is there
    const { Queue } = await import('bullmq')
    const { redisUrl } = await import('./support/harness.ts')
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    while ((await q.getJobCounts('wait')).wait === 0) await q.getJobCounts('wait')
    controller.abort()
    const result = await pending
    expect(codeOf(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(nameOf(result)).toBe('RemoteNotStarted')
    // a worker comes; jobs are taken in order, one at a time: once the next call is answered, the
    // cancelled job has been taken and answered without running its body
    const { rec } = await localWorker(queue, 'late', { concurrency: 1 })
    const after = input('echo', { value: 1 })
    expect(codeOf(await execute(after))).toBe('OK')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${after.callId}@late`])
    expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBeNull()
    await q.close()
  })

  it('D3: a job whose deadline passed before any worker took it is not run', async () => {
    const queue = uniqueQueue()
    const { execute } = await caller(queue, {}, { defaultTimeoutMs: 200 })
    const call = input('increment', {})
    expect(codeOf(await execute(call))).toBe('TIMEOUT')
    const { rec } = await localWorker(queue, 'late', { concurrency: 1 })
    const after = input('echo', { value: 1 })
    // through a caller without a timeout: jobs are taken in order, one at a time
    const other = await caller(queue)
    expect(codeOf(await other.execute(after))).toBe('OK')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${after.callId}@late`])
    expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBeNull()
  })
})
