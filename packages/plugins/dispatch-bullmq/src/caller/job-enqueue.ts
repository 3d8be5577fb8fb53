import type { ToolExecContext, ToolExecutionFailure } from '@deepseek-ai/dsh-tools'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import type { RemoteJobData } from '../protocol/job-data.ts'
import { cancelUnconfirmed } from './cancel-job.ts'
import type { DispatchRuntime } from './dispatch-runtime.ts'
import { JOB_FIELDS } from './job-state.ts'
import { remoteFailure } from './remote-failure.ts'

// Putting a call's job on the queue, reading back what its id holds, and putting it there again
// after its worker died (D10, D12): each bounded by `enqueueTimeoutMs`, each saying what Redis may
// still do with what was sent.

/** Adds the job (a second add of the id keeps the first job) and reads back what the id holds. */
export async function enqueue(
  runtime: DispatchRuntime,
  jobId: string,
  data: RemoteJobData,
  exec: ToolExecContext,
  fail: (failure: ToolExecutionFailure) => never,
): Promise<(string | null)[]> {
  /** `sent`: `queue.add` was called and has not been refused (it may be in flight or queued offline). */
  const enqueued: { add: 'not-sent' | 'sent' | 'refused' } = { add: 'not-sent' }
  try {
    return await bounded(runtime.enqueueTimeoutMs, async () => {
      await runtime.ready
      enqueued.add = 'sent'
      await addJob(runtime, jobId, data).catch((error: unknown) => {
        enqueued.add = 'refused'
        throw error
      })
      // what the id holds now: this call, an earlier delivery of it, or another call
      return runtime.commands.hmget(runtime.keys.job(jobId), ...JOB_FIELDS)
    })
  } catch (error) {
    if (enqueued.add === 'sent') {
      // Not confirmed in time, not refused either: BullMQ's connection keeps the add and sends
      // it once Redis answers again (a stall, a restart), so a worker may still run it. Cancel it
      // behind the add, on the same connection, so that it lands first; the answer is only what
      // is known: it may or may not have run.
      cancelUnconfirmed(runtime, jobId)
      return fail(unconfirmed(runtime, exec, error))
    }
    return fail(
      remoteFailure(
        'PIPELINE_FAILED',
        RemoteFailureNames.DispatchFailed,
        `Tool "${exec.toolName}" could not be dispatched to queue "${runtime.queueName}"; it was not run: ${describe(error)}`,
      ),
    )
  }
}

/** T64: what the id holds, without adding anything; a job that is not there is an unknown outcome. */
export async function readKept(
  runtime: DispatchRuntime,
  jobId: string,
  exec: ToolExecContext,
  fail: (failure: ToolExecutionFailure) => never,
): Promise<(string | null)[]> {
  let stored: (string | null)[]
  try {
    stored = await bounded(runtime.enqueueTimeoutMs, async () => {
      await runtime.ready
      return runtime.commands.hmget(runtime.keys.job(jobId), ...JOB_FIELDS)
    })
  } catch (error) {
    return fail(
      remoteFailure(
        'INTERRUPTED',
        RemoteFailureNames.QueueUnreachable,
        `Tool "${exec.toolName}" was interrupted: its job on queue "${runtime.queueName}" could not be read (${describe(error)}). It may or may not have taken effect.`,
      ),
    )
  }
  if ((stored[JOB_FIELDS.indexOf('data')] ?? null) === null) {
    return fail(
      remoteFailure(
        'INTERRUPTED',
        RemoteFailureNames.JobLost,
        `Tool "${exec.toolName}" was interrupted: no job is kept under its key on queue "${runtime.queueName}" (it was never sent before the process stopped, or it is no longer kept), and it was not run again. It may or may not have taken effect.`,
      ),
    )
  }
  return stored
}

function addJob(runtime: DispatchRuntime, jobId: string, data: RemoteJobData): Promise<unknown> {
  const age = Math.ceil(runtime.retainMs / 1000)
  return runtime.queue.add(data.tool, data, {
    jobId,
    attempts: 1,
    removeOnComplete: { age },
    removeOnFail: { age },
  })
}

export function unconfirmed(
  runtime: DispatchRuntime,
  exec: ToolExecContext,
  error: unknown,
): ToolExecutionFailure {
  return remoteFailure(
    'INTERRUPTED',
    RemoteFailureNames.DispatchFailed,
    `Tool "${exec.toolName}" was interrupted: its job on queue "${runtime.queueName}" was sent but not confirmed (${describe(error)}); it was cancelled so that no worker starts it if it lands later. It may or may not have taken effect.`,
  )
}

/**
 * What became of a dispatch again: `requeued`; `held`, a worker holds a job under the id (another
 * delivery of the call dispatched it again first: BullMQ does not remove a locked job); `unsent`,
 * nothing new can land under the id (Redis refused or did not answer before the add was sent);
 * `unconfirmed`, the add was sent and not confirmed, and is cancelled behind it (it may still land
 * and, before the cancellation does, run).
 */
export type Requeue =
  | { readonly kind: 'requeued' | 'held' | 'unsent' }
  | { readonly kind: 'unconfirmed'; readonly error: unknown }

/**
 * D10, D12: removes a job whose worker died (it holds no lock, so BullMQ lets it go) and adds it
 * again under the same id.
 */
export async function requeue(
  runtime: DispatchRuntime,
  jobId: string,
  data: RemoteJobData,
): Promise<Requeue> {
  const add: { state: 'not-sent' | 'sent' | 'refused' } = { state: 'not-sent' }
  try {
    return await bounded(runtime.enqueueTimeoutMs, async (): Promise<Requeue> => {
      if ((await runtime.queue.remove(jobId)) !== 1) return { kind: 'held' }
      add.state = 'sent'
      await addJob(runtime, jobId, data).catch((error: unknown) => {
        add.state = 'refused'
        throw error
      })
      return { kind: 'requeued' }
    })
  } catch (error) {
    if (add.state !== 'sent') return { kind: 'unsent' }
    cancelUnconfirmed(runtime, jobId)
    return { kind: 'unconfirmed', error }
  }
}

/** Runs `work`, rejecting if it has not settled after `ms` (a Redis that does not answer). */
function bounded<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms)
    work().then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
