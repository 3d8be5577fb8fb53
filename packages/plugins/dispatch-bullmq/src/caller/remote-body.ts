import type { JsonObject } from '@deepseek-ai/dsh-llm'
import {
  REATTACHING_BODY,
  type ToolBody,
  type ToolExecContext,
  type ToolExecutionFailure,
} from '@deepseek-ai/dsh-tools'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import { PROTOCOL_VERSION, jobIdFor, type RemoteJobData } from '../protocol/job-data.ts'
import { cancelJob } from './cancel-job.ts'
import type { DispatchRuntime } from './dispatch-runtime.ts'
import { enqueue, readKept, requeue, unconfirmed } from './job-enqueue.ts'
import { JOB_FIELDS, jobOutcome, type JobOutcome } from './job-state.ts'
import { outcomeValue } from './outcome-value.ts'
import { readRemoteProgress } from './progress-report.ts'
import { RemoteOutcome, remoteFailure } from './remote-failure.ts'

/**
 * How many times, in all, a call is enqueued when its workers keep dying under it (D10) or before
 * its body began (D12): the same bound as a resume's attempts (T51).
 */
export const MAX_DISPATCHES = 3

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
 * body's `exec.reportProgress` (D9). A job whose worker died before the body began (no started
 * mark) is enqueued again under the same id (D12), as is one of an idempotent tool whose worker died
 * at any point (D10); a body that only re-attaches (T64) is marked so, and enqueues nothing but the
 * job its first run enqueued, again, when that job was lost before it began (T73).
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
      // D12: the worker died before the body began (no mark): the same job, on another worker,
      // whatever the tool, a re-attach included (the job the first run enqueued, as it enqueued it);
      // D10: it died under a body that may run again
      const again = call.reattachOnly ? keptJob(storedData, data) : data
      let dispatches = 1
      while (outcome.kind === 'lost' && (!outcome.began || (call.idempotent && !call.reattachOnly))) {
        if (dispatches >= MAX_DISPATCHES || exec.signal.aborted) break
        const next = await requeue(runtime, jobId, again)
        // nothing new under the id: what the lost job says is the answer
        if (next.kind === 'unsent') break
        if (next.kind === 'unconfirmed') return fail(unconfirmed(runtime, exec, next.error))
        // requeued, or held: another delivery of this call dispatched it first, and a worker has it
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

/**
 * What a re-attach enqueues again for a job that never began (D12): the job the first run enqueued
 * (its arguments are the ones policy passed then), with this run's deadline.
 */
function keptJob(text: string, data: RemoteJobData): RemoteJobData {
  const { deadline: _before, ...kept } = JSON.parse(text) as RemoteJobData
  return data.deadline === undefined ? kept : { ...kept, deadline: data.deadline }
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
