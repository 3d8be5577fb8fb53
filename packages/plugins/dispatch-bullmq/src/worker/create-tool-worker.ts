import { Worker } from 'bullmq'
import { createContext } from '@deepseek-ai/dsh-context'
import { bullConnection, dispatchKeys, openClient, whenReady } from '../protocol/connection.ts'
import type { RemoteReply } from '../protocol/reply.ts'
import { readWorkerOptions, type ToolWorkerOptions } from './read-worker-options.ts'
import { beganMarker } from './began-marker.ts'
import { runJob, type RunJobEnvironment, type WorkerPauses } from './run-job.ts'

export interface ToolWorker {
  /** Resolves when the worker is connected and listening for cancellations; rejects if it cannot. */
  readonly ready: Promise<void>
  /**
   * Stops taking jobs and waits for the bodies running now to finish (their results are still
   * delivered), then disconnects. Idempotent.
   */
  close(): Promise<void>
}

/**
 * Runs the bodies of remote tool calls: a BullMQ worker on the dispatcher's queue. Each job is one
 * call (see `runJob`). Before a body's first instruction the worker records in the job that it
 * began (D11), only while it still holds the job. A job whose worker dies is never run again by
 * BullMQ (`maxStalledCount: 0`: it fails the job instead of handing it to another worker); the
 * caller enqueues it again only when it never began (D12) or its tool is idempotent (D10), so a
 * body that is not idempotent runs at most once per call id. Cancellation reaches a running body
 * through a Redis channel: the worker running the job aborts BullMQ's job signal, which the body
 * sees as `exec.signal`.
 * @example
 * const worker = createToolWorker({ connection: 'redis://127.0.0.1:6379', tools: [build, test] })
 * await worker.ready
 */
export function createToolWorker(options: ToolWorkerOptions): ToolWorker {
  return startToolWorker(options, undefined)
}

/** `createToolWorker` with the pauses a test injects between a job's steps (not exported by the package). */
export function startToolWorker(options: ToolWorkerOptions, pauses: WorkerPauses | undefined): ToolWorker {
  const resolved = readWorkerOptions(options)
  const keys = dispatchKeys(resolved.prefix, resolved.queueName)
  const commands = openClient(resolved.connection, { maxRetriesPerRequest: 2 })
  const subscriber = openClient(resolved.connection, {})
  const ctx = resolved.ctx ?? createContext()
  const environment: RunJobEnvironment = {
    tools: resolved.tools,
    ctx,
    maxResultBytes: resolved.maxResultBytes,
    markBegan: beganMarker(commands, keys, {
      replicas: resolved.markReplicas,
      waitMs: resolved.markWaitMs,
    }),
    progressIntervalMs: resolved.progressIntervalMs,
    pauses,
  }
  let closing: Promise<void> | undefined
  const onError = (): void => {
    // connection errors are retried by ioredis; a job's own failure is a reply, never thrown
  }
  commands.on('error', onError)
  subscriber.on('error', onError)

  // Listen for cancellations before taking any job: a message published after a job's marker check
  // must reach this worker (see runJob).
  const subscribed = (async () => {
    await whenReady(subscriber)
    await subscriber.subscribe(keys.cancelChannel)
  })()
  const worker = subscribed.then(() => {
    const bull = new Worker<unknown, RemoteReply>(
      resolved.queueName,
      (job, token, signal) =>
        runJob(environment, {
          id: job.id ?? '',
          token,
          data: job.data,
          signal,
          updateProgress: (report) => job.updateProgress({ ...report }),
        }),
      {
        connection: bullConnection(resolved.connection),
        prefix: resolved.prefix,
        concurrency: resolved.concurrency,
        lockDuration: resolved.lockDurationMs,
        stalledInterval: resolved.stalledIntervalMs,
        maxStalledCount: 0,
        ...(resolved.name === undefined ? {} : { name: resolved.name }),
      },
    )
    bull.on('error', onError)
    subscriber.on('message', (channel: string, jobId: string) => {
      if (channel === keys.cancelChannel) bull.cancelJob(jobId, 'cancelled by the caller')
    })
    return bull
  })
  const ready = (async () => {
    const bull = await worker
    await bull.waitUntilReady()
    await whenReady(commands)
  })()
  ready.catch(() => {})

  return {
    ready,
    close() {
      closing ??= (async () => {
        const bull = await worker.catch(() => undefined)
        await bull?.close()
        subscriber.disconnect()
        commands.disconnect()
      })()
      return closing
    },
  }
}
