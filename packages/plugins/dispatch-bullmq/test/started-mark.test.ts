import { fileURLToPath } from 'node:url'
import { Queue, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { installTools, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import {
  createRemoteDispatch,
  jobIdFor,
  type ToolWorker,
  type ToolWorkerOptions,
} from '@deepseek-ai/dsh-dispatch-bullmq'
import { startRedis, type ThrowawayRedis } from '../../../../scripts/redis-server.mjs'
import { deferred } from '../../../../test-support/deferred.ts'
import { startToolWorker } from '../src/worker/create-tool-worker.ts'
import type { WorkerPausePoint, WorkerPauses } from '../src/worker/run-job.ts'
import { BEGAN_FIELD } from '../src/protocol/began-mark.ts'
import { PROTOCOL_VERSION } from '../src/protocol/job-data.ts'
import type { DispatchRuntime } from '../src/caller/dispatch-runtime.ts'
import { requeue } from '../src/caller/job-enqueue.ts'
import { caller, codeOf, input, localWorker, nameOf, redisUrl, uniqueQueue } from './support/harness.ts'
import { startLineProcess } from './support/line-process.ts'
import { recorder, remoteTools, type Recorder } from './support/remote-tools.ts'

// D11/D12: the worker's started mark, and the races around it, made deterministic with pauses the
// tests inject between a job's steps (the worker's internal `startToolWorker`), real processes
// SIGSTOPped and SIGKILLed, and a real redis-server restarted under a paused worker.

const PAUSED_WORKER = fileURLToPath(new URL('./fixtures/paused-worker.ts', import.meta.url))
const POINTS: readonly WorkerPausePoint[] = ['claimed', 'marked', 'answered', 'unclaimed']

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, 30_000)

/** Pauses for an in-process worker: each point says which job reached it; `holdAt` points wait. */
function pausesAt(holdAt: readonly WorkerPausePoint[]) {
  const reached = new Map(POINTS.map((point) => [point, deferred<string>()]))
  const gates = new Map(POINTS.map((point) => [point, deferred()]))
  const pauses: WorkerPauses = (point, job) => {
    reached.get(point)!.resolve(job.id)
    return holdAt.includes(point) ? gates.get(point)!.promise : undefined
  }
  return {
    pauses,
    reached: (point: WorkerPausePoint): Promise<string> => reached.get(point)!.promise,
    release: (point: WorkerPausePoint): void => gates.get(point)!.resolve(),
  }
}

/** A worker in this process with the tests' tools and pauses, closed after the test. */
async function pausedWorker(
  url: string,
  queueName: string,
  pauses: WorkerPauses,
  name = 'paused',
  options: Partial<ToolWorkerOptions> = {},
) {
  const rec = recorder(url, queueName, name)
  const worker: ToolWorker = startToolWorker(
    { connection: url, queueName, name, tools: remoteTools(rec), concurrency: 4, ...options },
    pauses,
  )
  cleanups.push(async () => {
    await worker.close()
    rec.redis.disconnect()
  })
  await worker.ready
  return rec
}

/** A worker process that stops every job at `pauseAt` (fixtures/paused-worker.ts). */
async function pausedProcess(url: string, queue: string, name: string, pauseAt: WorkerPausePoint) {
  const child = startLineProcess(PAUSED_WORKER, { redisUrl: url, queue, name, lockDurationMs: 500, pauseAt })
  cleanups.push(() => child.kill())
  await child.next((line) => line.ready === name)
  return child
}

/** A caller on `url` (the throwaway Redis of a restart test). */
async function callerOn(url: string, queueName: string) {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx, { abortGraceMs: 60_000 })
  const rec = recorder(url, queueName, 'caller')
  for (const tool of remoteTools(rec)) ctx.tools.register(tool)
  const dispatch = createRemoteDispatch({
    connection: url,
    queueName,
    remote: ['increment', 'wait'],
    checkIntervalMs: 50,
    unreachableAfterMs: 20_000,
  })
  cleanups.push(async () => {
    await dispatch.close()
    rec.redis.disconnect()
  })
  dispatch.install(ctx)
  await dispatch.ready
  return { execute: (call: ToolExecutionInput) => ctx.tools.execute(call), rec }
}

const jobKey = (queue: string, call: ToolExecutionInput): string =>
  `bull:${queue}:${jobIdFor(call.callId, undefined)}`

const count = (rec: Recorder, call: ToolExecutionInput) => rec.redis.get(`${rec.base}:count:${call.callId}`)

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

/** A throwaway Redis, stopped after everything the test opened on it was closed. */
async function throwawayRedis(options?: Parameters<typeof startRedis>[0]): Promise<ThrowawayRedis> {
  const redis = await startRedis(options)
  cleanups.push(() => redis.stop())
  return redis
}

describe('what the mark survives (D12)', { timeout: 30_000 }, () => {
  it('D12: Redis restarted empty between a worker’s claim and its mark: the worker does not start the body; the call is INTERRUPTED (JobLost)', async () => {
    const redis = await throwawayRedis()
    const queue = uniqueQueue()
    const stops = pausesAt(['claimed'])
    const rec = await pausedWorker(redis.url, queue, stops.pauses)
    const { execute } = await callerOn(redis.url, queue)
    const call = input('increment', {})
    const pending = execute(call)
    await stops.reached('claimed')
    await redis.restart()
    const result = await pending
    expect([codeOf(result), nameOf(result)]).toEqual(['INTERRUPTED', 'JobLost'])
    stops.release('claimed')
    const next = await Promise.race(
      (['unclaimed', 'marked'] as const).map((point) => stops.reached(point).then(() => point)),
    )
    expect(next).toBe('unclaimed')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([])
  })

  it('D12: with appendfsync always the mark survives a Redis crash: the worker killed after it is WorkerLost (INTERRUPTED), the job is not run again', async () => {
    const redis = await throwawayRedis({ persistence: 'aof-always' })
    const queue = uniqueQueue()
    const marked = await pausedProcess(redis.url, queue, 'marked', 'marked')
    const { execute, rec } = await callerOn(redis.url, queue)
    const call = input('increment', {})
    const pending = execute(call)
    await marked.next((line) => line.at === 'marked')
    await redis.restart()
    const check = new Redis(redis.url, { maxRetriesPerRequest: 1 })
    check.on('error', () => {})
    cleanups.push(() => check.disconnect())
    expect(await check.hget(jobKey(queue, call), BEGAN_FIELD)).toMatch(/^\d+$/)
    await marked.kill()
    // a worker that would run the job if it were enqueued again
    await pausedWorker(redis.url, queue, () => undefined, 'heir')
    const result = await pending
    expect([codeOf(result), nameOf(result)]).toEqual(['INTERRUPTED', 'WorkerLost'])
    expect(await count(rec, call)).toBeNull()
    expect(await check.lrange(`${queue}:started`, 0, -1)).toEqual([])
  })

  it('D11: with markReplicas the body starts only once its mark reached that many replicas; a mark they do not confirm in time starts nothing (PIPELINE_FAILED, RemoteNotStarted)', async () => {
    const primary = await throwawayRedis()
    const replica = await throwawayRedis()
    const follower = new Redis(replica.url, { maxRetriesPerRequest: 1 })
    follower.on('error', () => {})
    cleanups.push(() => follower.disconnect())
    await follower.replicaof('127.0.0.1', String(primary.port))
    while (!(await follower.info('replication')).includes('master_link_status:up'))
      await new Promise((resolve) => setTimeout(resolve, 20))
    const queue = uniqueQueue()
    // waits as long as a loaded machine may need for a live replica's acknowledgement
    const patientRec = recorder(primary.url, queue, 'patient')
    const patient = startToolWorker(
      {
        connection: primary.url,
        queueName: queue,
        tools: remoteTools(patientRec),
        markReplicas: 1,
        markWaitMs: 20_000,
      },
      undefined,
    )
    cleanups.push(async () => {
      await patient.close()
      patientRec.redis.disconnect()
    })
    await patient.ready
    const { execute, rec } = await callerOn(primary.url, queue)
    const confirmed = input('increment', {})
    expect(await execute(confirmed)).toMatchObject({ isError: false, value: 1 })
    expect(await follower.hget(jobKey(queue, confirmed), BEGAN_FIELD)).toMatch(/^\d+$/)
    await patient.close()

    // a replica that does not answer (stopped): the mark is on the primary alone
    await pausedWorker(primary.url, queue, () => undefined, 'hasty', { markReplicas: 1, markWaitMs: 200 })
    process.kill(replica.pid!, 'SIGSTOP')
    const unconfirmed = input('increment', {})
    let result
    try {
      result = await execute(unconfirmed)
    } finally {
      process.kill(replica.pid!, 'SIGCONT')
    }
    expect([codeOf(result), nameOf(result)]).toEqual(['PIPELINE_FAILED', 'RemoteNotStarted'])
    expect(result.isError && result.error.message).toMatch(/could not confirm on its Redis replicas/)
    expect(await count(rec, unconfirmed)).toBeNull()
  })
})
