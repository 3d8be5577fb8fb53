import { Queue, Worker } from 'bullmq'
import { describe, expect, it } from 'vitest'
import { jobIdFor } from '@deepseek-ai/dsh-dispatch-bullmq'
import { deferred } from '../../../../test-support/deferred.ts'
import { BEGAN_FIELD } from '../src/protocol/began-mark.ts'
import { PROTOCOL_VERSION } from '../src/protocol/job-data.ts'
import type { DispatchRuntime } from '../src/caller/dispatch-runtime.ts'
import { requeue } from '../src/caller/job-enqueue.ts'
import { caller, codeOf, input, localWorker, nameOf, redisUrl, uniqueQueue } from './support/harness.ts'
import { cleanups, count, jobKey, pausedProcess, pausedWorker, pausesAt } from './support/paused-workers.ts'

// D11/D12: the worker's started mark, and the races around it in the queue, made deterministic
// with pauses the tests inject between a job's steps (support/paused-workers.ts) and a worker
// process SIGSTOPped past its lock. What the mark survives of Redis itself: mark-durability.test.ts.

describe('the worker’s started mark (D11)', { timeout: 30_000 }, () => {
  it('D11: the worker marks the job after it took it and before the body’s first instruction', async () => {
    const queue = uniqueQueue()
    const stops = pausesAt(['claimed', 'marked'])
    const rec = await pausedWorker(redisUrl(), queue, stops.pauses)
    const { execute } = await caller(queue)
    const call = input('increment', {})
    const pending = execute(call)
    await stops.reached('claimed')
    const [processedOn, unmarked] = await rec.redis.hmget(jobKey(queue, call), 'processedOn', BEGAN_FIELD)
    expect(processedOn).not.toBeNull()
    expect(unmarked).toBeNull()
    stops.release('claimed')
    await stops.reached('marked')
    expect(await rec.redis.hget(jobKey(queue, call), BEGAN_FIELD)).toMatch(/^\d+$/)
    expect(await count(rec, call)).toBeNull()
    stops.release('marked')
    expect(await pending).toMatchObject({ isError: false, value: 1 })
  })

  it('D11: a call cancelled while its worker holds the job unmarked is answered ABORTED_BEFORE_DISPATCH at once, and the body never starts', async () => {
    const queue = uniqueQueue()
    const stops = pausesAt(['claimed'])
    const rec = await pausedWorker(redisUrl(), queue, stops.pauses)
    // past the grace the pipeline would answer ABORTED itself: ABORTED_BEFORE_DISPATCH is the dispatcher's
    const { execute } = await caller(queue, {}, { abortGraceMs: 5_000 })
    const controller = new AbortController()
    const call = input('increment', {}, { signal: controller.signal })
    const pending = execute(call)
    await stops.reached('claimed')
    controller.abort()
    const result = await pending
    expect([codeOf(result), nameOf(result)]).toEqual(['ABORTED_BEFORE_DISPATCH', 'RemoteNotStarted'])
    // the worker goes on: its mark finds the cancellation in the same step, and it answers without the body
    stops.release('claimed')
    await stops.reached('answered')
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    cleanups.push(() => q.close())
    const job = await q.getJob(jobIdFor(call.callId, undefined))
    while ((await job!.getState()) !== 'completed') await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await q.getJob(jobIdFor(call.callId, undefined)))?.returnvalue).toMatchObject({
      kind: 'not-started',
      reason: 'cancelled',
    })
    expect(await rec.redis.hget(jobKey(queue, call), BEGAN_FIELD)).toBeNull()
    expect(await count(rec, call)).toBeNull()
  })
})

describe('a job lost before its started mark (D12)', { timeout: 30_000 }, () => {
  it('D12: a worker stopped (SIGSTOP) between its claim and its mark loses the job to another worker, which runs the body once; resumed, it does not start it', async () => {
    const queue = uniqueQueue()
    const stopped = await pausedProcess(redisUrl(), queue, 'stopped', 'claimed')
    const { execute, rec } = await caller(queue)
    const call = input('increment', {})
    const pending = execute(call)
    const jobId = jobIdFor(call.callId, undefined)
    await stopped.next((line) => line.at === 'claimed' && line.job === jobId)
    // its event loop frozen, it stops renewing the job's lock: the lock expires, the stall check of
    // the other worker fails the job (or the caller's sweep finds it unlocked) with no mark on it
    process.kill(stopped.child.pid!, 'SIGSTOP')
    await localWorker(queue, 'rescue', { lockDurationMs: 500, stalledIntervalMs: 100 })
    const result = await pending
    expect(result).toMatchObject({ isError: false, value: 1 })
    process.kill(stopped.child.pid!, 'SIGCONT')
    await rec.redis.rpush(`${queue}:go:${jobId}`, 'go')
    // it goes on from its pause: its mark is refused (the job is not its own any more), no body starts
    const next = await stopped.next(
      (line) => line.job === jobId && (line.at === 'unclaimed' || line.at === 'marked'),
    )
    expect(next.at).toBe('unclaimed')
    expect(await count(rec, call)).toBe('1')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${call.callId}@rescue`])
  })

  it('D12/T73: a call whose workers keep stopping before the mark is dispatched 3 times in all, then answered PIPELINE_FAILED (WorkerLost): it never ran', async () => {
    const queue = uniqueQueue()
    // a consumer that takes jobs and stops before any mark: its lock is never renewed, nothing is written
    const claims: string[] = []
    const dead = new Worker(
      queue,
      (job) => {
        claims.push(job.id ?? '')
        return new Promise<never>(() => {})
      },
      {
        connection: { url: redisUrl() },
        lockDuration: 300,
        skipLockRenewal: true,
        skipStalledCheck: true,
        concurrency: 5,
      },
    )
    dead.on('error', () => {})
    cleanups.push(() => dead.close(true))
    const { execute, rec } = await caller(queue)
    const call = input('increment', {})
    const result = await execute(call)
    expect([codeOf(result), nameOf(result)]).toEqual(['PIPELINE_FAILED', 'WorkerLost'])
    expect(result.isError && result.error.message).toMatch(/was not run: the workers that took its job/)
    expect(claims).toEqual(Array.from({ length: 3 }, () => jobIdFor(call.callId, undefined)))
    expect(await count(rec, call)).toBeNull()
  })

  it('D12: dispatching again a job that a worker holds (another delivery of the call dispatched it first) removes nothing and reports it held', async () => {
    const queue = uniqueQueue()
    const stops = pausesAt(['claimed'])
    await pausedWorker(redisUrl(), queue, stops.pauses)
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    cleanups.push(() => q.close())
    const data = { v: PROTOCOL_VERSION, tool: 'increment', args: {}, callId: 'held-1' } as const
    await q.add('increment', data, { jobId: 'call-held-1' })
    await stops.reached('claimed')
    const runtime = { queue, enqueueTimeoutMs: 5_000 } as unknown as DispatchRuntime
    expect(await requeue({ ...runtime, queue: q }, 'call-held-1', data)).toEqual({ kind: 'held' })
    expect(await q.getJobState('call-held-1')).toBe('active')
    stops.release('claimed')
  })

  it('D12/T73: a resumed call that may only re-attach finds its job lost before the mark: it is dispatched again, as the first run enqueued it, and the model gets the real result', async () => {
    const queue = uniqueQueue()
    const taken = deferred()
    const dead = new Worker(
      queue,
      () => {
        taken.resolve()
        return new Promise<never>(() => {})
      },
      { connection: { url: redisUrl() }, lockDuration: 300, skipLockRenewal: true, skipStalledCheck: true },
    )
    dead.on('error', () => {})
    cleanups.push(() => dead.close(true))
    // the first caller enqueues the job and "crashes": its sweep never runs again in this test
    const crashed = await caller(queue, { checkIntervalMs: 60_000 })
    const call = input(
      'echo',
      { value: 'as policy passed it' },
      { effects: Object.freeze({ idempotencyScope: 'sess-m' }) },
    )
    void crashed.execute(call)
    await taken.promise
    await dead.close(true)
    const { rec } = await localWorker(queue, 'rescue')
    const resumed = await caller(queue)
    // the resumed call's own arguments are not what the first run enqueued (a policy rewrote those)
    const result = await resumed.execute({
      ...call,
      arguments: JSON.stringify({ value: 'as the model wrote it' }),
      effects: Object.freeze({ idempotencyScope: 'sess-m', reattachOnly: true }),
    })
    expect(result).toMatchObject({ isError: false, value: 'as policy passed it' })
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${call.callId}@rescue`])
  })
})
