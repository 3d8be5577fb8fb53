import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import {
  toolMessages,
  type ExecuteCall,
  type ToolBody,
  type ToolExecContext,
  type ToolExecutionFailure,
} from '@deepseek-ai/dsh-tools'
import type { DispatchKeys } from '../protocol/connection.ts'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import { PROTOCOL_VERSION, jobIdFor, type RemoteJobData } from '../protocol/job-data.ts'
import { readReply } from '../protocol/reply.ts'
import { JOB_FIELDS, jobOutcome, type JobOutcome } from './job-state.ts'
import type { JobWatch, Watched } from './job-watch.ts'
import { RemoteOutcome, remoteFailure } from './remote-failure.ts'

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

/**
 * The body that runs in place of the tool's own (`next({ ...call, body })`): enqueue the call as
 * one job (id from the call id), wait for the job's outcome, and hand the worker's value back to
 * the pipeline, which checks it as a local value. The caller's abort and timeout reach the body's
 * signal; on it the job is cancelled (a marker the worker checks before starting, then a message
 * that aborts a running body). Outcomes that are not the body's own (a lost worker, a refused
 * enqueue…) are left in `slot` and thrown, and the wrapper answers with them.
 */
export function remoteBody(
  runtime: DispatchRuntime,
  call: ExecuteCall,
  args: JsonObject,
  slot: FailureSlot,
): ToolBody {
  const deadline = call.timeoutMs === undefined ? undefined : Date.now() + call.timeoutMs
  return async (_args, exec) => {
    const fail = (failure: ToolExecutionFailure): never => {
      slot.failure = failure
      throw new RemoteOutcome(failure)
    }
    const jobId = jobIdFor(exec.callId, runtime.namespace)
    const data: RemoteJobData = {
      v: PROTOCOL_VERSION,
      tool: exec.toolName,
      args,
      callId: exec.callId,
      ...(exec.turn === undefined ? {} : { turn: exec.turn }),
      ...(exec.step === undefined ? {} : { step: exec.step }),
      ...(deadline === undefined ? {} : { deadline }),
    }
    const watched = runtime.watch.watch(jobId)
    const onAbort = (): void => void cancel(runtime, jobId, watched)
    exec.signal.addEventListener('abort', onAbort, { once: true })
    try {
      let stored: (string | null)[]
      try {
        stored = await bounded(runtime.enqueueTimeoutMs, async () => {
          await runtime.ready
          await runtime.queue.add(exec.toolName, data, {
            jobId,
            attempts: 1,
            removeOnComplete: { age: Math.ceil(runtime.retainMs / 1000) },
            removeOnFail: { age: Math.ceil(runtime.retainMs / 1000) },
          })
          // what the id holds now: this call, an earlier delivery of it, or another call
          return runtime.commands.hmget(runtime.keys.job(jobId), ...JOB_FIELDS)
        })
      } catch (error) {
        return fail(
          remoteFailure(
            'PIPELINE_FAILED',
            RemoteFailureNames.DispatchFailed,
            `Tool "${exec.toolName}" could not be dispatched to queue "${runtime.queueName}": ${describe(error)}`,
          ),
        )
      }
      runtime.watch.contact()
      if (!sameCall(stored[JOB_FIELDS.indexOf('data')] ?? null, data)) {
        return fail(
          remoteFailure(
            'PIPELINE_FAILED',
            RemoteFailureNames.CallIdReused,
            `Call id "${exec.callId}" of tool "${exec.toolName}" is already taken on queue "${runtime.queueName}" by a different call (another tool or other arguments); it was not run. Call ids must be unique per queue while jobs are kept (retainMs); set a namespace per session if ids repeat.`,
          ),
        )
      }
      watched.enqueued()
      const already = jobOutcome(true, stored, true)
      if (already !== undefined) watched.settle(already)
      return outcomeValue(await watched.promise, exec, runtime.queueName, fail)
    } finally {
      exec.signal.removeEventListener('abort', onAbort)
      // stop watching (a no-op when the outcome came): nothing stays registered after the body
      watched.settle({ kind: 'closed' })
    }
  }
}

/** The job stored under the id is this call when tool, call id and arguments agree (not the deadline). */
function sameCall(text: string | null, data: RemoteJobData): boolean {
  if (text === null) return false
  try {
    const stored = JSON.parse(text) as Partial<RemoteJobData>
    return (
      stored.tool === data.tool &&
      stored.callId === data.callId &&
      JSON.stringify(stored.args) === JSON.stringify(data.args)
    )
  } catch {
    return false
  }
}

/**
 * Cancels a job: the marker first (a worker that has not started the body yet sees it and does not
 * start), then the message (a worker running it aborts the body's signal). A job that still has
 * not started after the marker was set never will: the call is answered at once.
 */
async function cancel(runtime: DispatchRuntime, jobId: string, watched: Watched): Promise<void> {
  try {
    await runtime.commands.set(runtime.keys.cancelMarker(jobId), '1', 'PX', runtime.retainMs)
    await runtime.commands.publish(runtime.keys.cancelChannel, jobId)
    const [processedOn, finishedOn] = await runtime.commands.hmget(
      runtime.keys.job(jobId),
      'processedOn',
      'finishedOn',
    )
    if (processedOn === null && finishedOn === null) watched.settle({ kind: 'not-started' })
  } catch {
    // Redis is unreachable: the abort grace answers the call, the sweeps settle the job
  }
}

function outcomeValue(
  outcome: JobOutcome,
  exec: ToolExecContext,
  queueName: string,
  fail: (failure: ToolExecutionFailure) => never,
): unknown {
  const name = exec.toolName
  switch (outcome.kind) {
    case 'reply':
      return replyValue(outcome.reply, exec, queueName, fail)
    case 'failed':
      return fail(
        remoteFailure(
          'PIPELINE_FAILED',
          RemoteFailureNames.RemoteJobFailed,
          `Tool "${name}" failed on queue "${queueName}": ${outcome.reason}`,
        ),
      )
    case 'lost':
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.WorkerLost,
          `Tool "${name}" was interrupted: the worker running it stopped before answering (its job lock expired). It may or may not have taken effect.`,
        ),
      )
    case 'gone':
      return fail(
        remoteFailure(
          'PIPELINE_FAILED',
          RemoteFailureNames.RemoteJobFailed,
          `Tool "${name}" failed on queue "${queueName}": its job disappeared from the queue before it was answered.`,
        ),
      )
    case 'unreachable':
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.QueueUnreachable,
          `Tool "${name}" was interrupted: the job queue could not be reached for ${outcome.ms} ms. It may or may not have taken effect.`,
        ),
      )
    case 'closed':
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.DispatcherClosed,
          `Tool "${name}" was interrupted: remote dispatch was closed while the call waited. It may or may not have taken effect.`,
        ),
      )
    case 'not-started':
      return fail(
        remoteFailure(
          'ABORTED_BEFORE_DISPATCH',
          RemoteFailureNames.RemoteNotStarted,
          toolMessages.cancelledBeforeStart(name),
        ),
      )
    default: {
      const never: never = outcome
      return never
    }
  }
}

function replyValue(
  raw: unknown,
  exec: ToolExecContext,
  queueName: string,
  fail: (failure: ToolExecutionFailure) => never,
): unknown {
  const name = exec.toolName
  const reply = readReply(raw)
  if (reply === undefined) {
    return fail(
      remoteFailure(
        'PIPELINE_FAILED',
        RemoteFailureNames.RemoteJobFailed,
        `Tool "${name}" failed on queue "${queueName}": the worker's answer is not one this dispatcher reads (another protocol version?).`,
      ),
    )
  }
  if (reply.kind === 'value' || reply.kind === 'thrown' || reply.kind === 'invalid-output')
    for (const text of reply.contexts ?? []) exec.deferContext(text)
  switch (reply.kind) {
    case 'value':
      if (reply.concludes === true) exec.concludeTurn()
      return reply.value
    case 'thrown':
      // the worker's description of what the body threw: the pipeline words it as for a local throw
      throw new Error(reply.message)
    case 'invalid-output':
      return fail(remoteFailure('INVALID_TOOL_OUTPUT', 'InvalidToolOutput', reply.message))
    case 'not-started':
      return reply.reason === 'cancelled'
        ? fail(
            remoteFailure(
              'ABORTED_BEFORE_DISPATCH',
              RemoteFailureNames.RemoteNotStarted,
              toolMessages.cancelledBeforeStart(name),
            ),
          )
        : fail(
            remoteFailure(
              'TIMEOUT',
              RemoteFailureNames.RemoteNotStarted,
              `Tool "${name}" timed out before a worker started it (its deadline passed in the queue).`,
            ),
          )
    case 'unknown-tool':
      return fail(
        remoteFailure(
          'PIPELINE_FAILED',
          RemoteFailureNames.RemoteToolUnknown,
          `Tool "${name}" is marked remote, but the workers of queue "${queueName}" have no tool of that name.`,
        ),
      )
    case 'bad-job':
      return fail(
        remoteFailure(
          'PIPELINE_FAILED',
          RemoteFailureNames.RemoteJobFailed,
          `Tool "${name}" failed on queue "${queueName}": the worker refused the job (${reply.message}).`,
        ),
      )
    default: {
      const never: never = reply
      return never
    }
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
