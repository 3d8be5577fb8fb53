// What the started-mark tests share (started-mark.test.ts, mark-durability.test.ts): workers with
// pauses injected between a job's steps (the worker's internal `startToolWorker`), in this process
// or in one of their own (fixtures/paused-worker.ts), a caller on any Redis, and a cleanup list run
// after each test in reverse order (so a throwaway Redis registered first is stopped last).
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { installTools, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import {
  createRemoteDispatch,
  jobIdFor,
  type ToolWorker,
  type ToolWorkerOptions,
} from '@deepseek-ai/dsh-dispatch-bullmq'
import { startRedis, type ThrowawayRedis } from '../../../../../scripts/redis-server.mjs'
import { deferred } from '../../../../../test-support/deferred.ts'
import { startToolWorker } from '../../src/worker/create-tool-worker.ts'
import type { WorkerPausePoint, WorkerPauses } from '../../src/worker/run-job.ts'
import { startLineProcess } from './line-process.ts'
import { recorder, remoteTools, type Recorder } from './remote-tools.ts'

const PAUSED_WORKER = fileURLToPath(new URL('../fixtures/paused-worker.ts', import.meta.url))
const POINTS: readonly WorkerPausePoint[] = ['claimed', 'marked', 'answered', 'unclaimed']

export const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, 30_000)

/** Pauses for an in-process worker: each point says which job reached it; `holdAt` points wait. */
export function pausesAt(holdAt: readonly WorkerPausePoint[]) {
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
export async function pausedWorker(
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
export async function pausedProcess(url: string, queue: string, name: string, pauseAt: WorkerPausePoint) {
  const child = startLineProcess(PAUSED_WORKER, { redisUrl: url, queue, name, lockDurationMs: 500, pauseAt })
  cleanups.push(() => child.kill())
  await child.next((line) => line.ready === name)
  return child
}

/** A caller on `url` (the throwaway Redis of a restart test). */
export async function callerOn(url: string, queueName: string) {
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

export const jobKey = (queue: string, call: ToolExecutionInput): string =>
  `bull:${queue}:${jobIdFor(call.callId, undefined)}`

export const count = (rec: Recorder, call: ToolExecutionInput) =>
  rec.redis.get(`${rec.base}:count:${call.callId}`)

/** A throwaway Redis, stopped after everything the test opened on it was closed. */
export async function throwawayRedis(options?: Parameters<typeof startRedis>[0]): Promise<ThrowawayRedis> {
  const redis = await startRedis(options)
  cleanups.push(() => redis.stop())
  return redis
}
