import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import {
  REATTACHING_BODY,
  type ToolBody,
  type ToolExecContext,
  type ToolExecutionFailure,
} from '@deepseek-ai/dsh-tools'
import type { DispatchKeys } from '../protocol/connection.ts'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import { PROTOCOL_VERSION, jobIdFor, type RemoteJobData } from '../protocol/job-data.ts'
import { cancelJob, cancelUnconfirmed } from './cancel-job.ts'
import { JOB_FIELDS, jobOutcome, type JobOutcome } from './job-state.ts'
import type { JobWatch } from './job-watch.ts'
import { outcomeValue } from './outcome-value.ts'
import { readRemoteProgress } from './progress-report.ts'
import { RemoteOutcome, remoteFailure } from './remote-failure.ts'

/**
 * How many times, in all, a call of an idempotent tool is enqueued when its workers keep dying
 * under it (D10): the same bound as a resume's attempts (T51).
 */
export const MAX_DISPATCHES = 3

/** What every remote body of one dispatcher shares. */
export interface DispatchRuntime {
  readonly ready: Promise<void>
  readonly queue: Queue
  readonly commands: Redis
  readonly keys: DispatchKeys
  readonly watch: JobWatch
  readonly queueName: string
  readonly namespace: string | undefined
  readonly enqueueTimeoutMs: number
  readonly retainMs: number
}

/** Where a remote body leaves a failure of its own for the wrapper to answer with. */
export interface FailureSlot {
  failure?: ToolExecutionFailure
}

/** What the wrapper knows of the call besides what its body's `exec` says. */
export interface RemoteCall {
  /** The validated arguments, as lossless JSON. */
  readonly args: JsonObject
  /** The caller's clock (epoch ms) past which the worker must not run or go on running the body. */
  readonly deadline: number | undefined
  /** The tool declares `idempotent: true`: a job whose worker died is enqueued again (D10). */
  readonly idempotent: boolean
  /** T64: only the outcome kept under the key is collected; nothing is enqueued. */
  readonly reattachOnly: boolean
}

/**
 * The body that runs in place of the tool's own (`next({ ...call, body })`): enqueue the call as
 * one job (its id from the call's idempotency key), wait for the job's outcome, and hand the
 * worker's value back to the pipeline, which checks it as a local value. The caller's abort and
 * timeout reach the body's signal; on it the job is cancelled (a marker the worker checks before
 * starting, then a message that aborts a running body). The worker's progress reports reach the
 * body's `exec.reportProgress` (D9). A job of an idempotent tool whose worker died is enqueued again
 * under the same id (D10); a body that only re-attaches (T64) enqueues nothing and is marked so.
 * Outcomes that are not the body's own (a lost worker, a refused enqueue…) are left in `slot` and
 * thrown, and the wrapper answers with them.
 */
export function remoteBody(runtime: DispatchRuntime, call: RemoteCall, slot: FailureSlot): ToolBody {
  const body: ToolBody = async (_args, exec) => {
    const fail = (failure: ToolExecutionFailure): never => {
      slot.failure = failure
      throw new RemoteOutcome(failure)
    }
    // T52: the job id is the call's idempotency key, so a caller that resumes after a crash adds
    // the same id: BullMQ keeps the job already queued, running or finished, and this re-attaches
    const idempotencyKey = exec.idempotencyKey
    const jobId = jobIdFor(idempotencyKey, runtime.namespace)
    const data: RemoteJobData = {
      v: PROTOCOL_VERSION,
      tool: exec.toolName,
      args: call.args,
      callId: exec.callId,
      ...(idempotencyKey === exec.callId ? {} : { idempotencyKey }),
      ...(exec.turn === undefined ? {} : { turn: exec.turn }),
      ...(exec.step === undefined ? {} : { step: exec.step }),
      ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
    }
    const onProgress = (raw: unknown): void => forwardProgress(exec, raw)
    let watched = runtime.watch.watch(jobId, onProgress)
    const onAbort = (): void => void cancelJob(runtime, jobId, watched)
    exec.signal.addEventListener('abort', onAbort, { once: true })
    try {
      const stored = call.reattachOnly
        ? await readKept(runtime, jobId, exec, fail)
        : await enqueue(runtime, jobId, data, exec, fail)
      runtime.watch.contact()
      const storedData = stored[JOB_FIELDS.indexOf('data')] ?? null
      // confirmed, then gone before it could be read back (a restart between the two): it may have run
      if (storedData === null) return outcomeValue({ kind: 'gone' }, exec, runtime.queueName, fail)
      if (!sameCall(storedData, data, call.reattachOnly)) {
        return fail(
          remoteFailure(
            call.reattachOnly ? 'INTERRUPTED' : 'PIPELINE_FAILED',
            RemoteFailureNames.CallIdReused,
            call.reattachOnly
              ? `Tool "${exec.toolName}" was interrupted: the job kept under its key on queue "${runtime.queueName}" is another call's, so its own outcome is unknown. It may or may not have taken effect.`
              : `Call id "${exec.callId}" of tool "${exec.toolName}" is already taken on queue "${runtime.queueName}" by a different call (another tool or other arguments); it was not run. Call ids must be unique per queue while jobs are kept (retainMs); set a namespace per session if ids repeat.`,
          ),
        )
      }
      watched.enqueued()
      const already = jobOutcome(true, stored, true)
      if (already !== undefined) watched.settle(already)
      let outcome: JobOutcome = await watched.promise
      // D10: the worker died under a body that may run again: the same job, on another worker
      let dispatches = 1
      while (outcome.kind === 'lost' && call.idempotent && !call.reattachOnly) {
        if (dispatches >= MAX_DISPATCHES || exec.signal.aborted) break
        if (!(await requeue(runtime, jobId, data))) break
        dispatches += 1
        // events of the lost job may still be on their way: only its hash says how the new one ended
        watched = runtime.watch.watch(jobId, onProgress, { trustFailedEvents: false })
        watched.enqueued()
        outcome = await watched.promise
      }
      return outcomeValue(outcome, exec, runtime.queueName, fail)
    } finally {
      exec.signal.removeEventListener('abort', onAbort)
      // stop watching (a no-op when the outcome came): nothing stays registered after the body
      watched.settle({ kind: 'closed' })
    }
  }
  // T64: the pipeline runs a body in place of the tool's own, for a call that may not start again,
  // only when it says that it starts nothing
  return call.reattachOnly ? Object.assign(body, { [REATTACHING_BODY]: true }) : body
}

/** D9: a worker's progress report becomes the caller's own; a malformed one is dropped. */
function forwardProgress(exec: ToolExecContext, raw: unknown): void {
  const report = readRemoteProgress(raw)
  if (report === undefined) return
  try {
    exec.reportProgress(report)
  } catch {
    // checked above as the pipeline checks it: nothing left to refuse
  }
}

/** Adds the job (a second add of the id keeps the first job) and reads back what the id holds. */
async function enqueue(
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
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.DispatchFailed,
          `Tool "${exec.toolName}" was interrupted: its job on queue "${runtime.queueName}" was sent but not confirmed (${describe(error)}); it was cancelled so that no worker starts it if it lands later. It may or may not have taken effect.`,
        ),
      )
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
async function readKept(
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

/**
 * D10: removes a job whose worker died (it holds no lock, so BullMQ lets it go) and adds it again
 * under the same id. False when it could not: a worker holds it after all, or Redis refused.
 */
async function requeue(runtime: DispatchRuntime, jobId: string, data: RemoteJobData): Promise<boolean> {
  try {
    return await bounded(runtime.enqueueTimeoutMs, async () => {
      if ((await runtime.queue.remove(jobId)) !== 1) return false
      await addJob(runtime, jobId, data)
      return true
    })
  } catch {
    return false
  }
}

/**
 * The job stored under the id is this call when tool, call id and arguments agree (not the
 * deadline). A re-attach (T64) compares tool and call id only: a policy may have rewritten the
 * arguments the first run enqueued, and the key is this session's.
 */
function sameCall(text: string, data: RemoteJobData, reattachOnly: boolean): boolean {
  try {
    const stored = JSON.parse(text) as Partial<RemoteJobData>
    return (
      stored.tool === data.tool &&
      stored.callId === data.callId &&
      (reattachOnly || JSON.stringify(stored.args) === JSON.stringify(data.args))
    )
  } catch {
    return false
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
