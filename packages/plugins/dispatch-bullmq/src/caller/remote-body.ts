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
    // T52: the job id is the call's idempotency key, so a caller that resumes after a crash adds
    // the same id: BullMQ keeps the job already queued, running or finished, and this re-attaches
    const idempotencyKey = exec.idempotencyKey
    const jobId = jobIdFor(idempotencyKey, runtime.namespace)
    const data: RemoteJobData = {
      v: PROTOCOL_VERSION,
      tool: exec.toolName,
      args,
      callId: exec.callId,
      ...(idempotencyKey === exec.callId ? {} : { idempotencyKey }),
      ...(exec.turn === undefined ? {} : { turn: exec.turn }),
      ...(exec.step === undefined ? {} : { step: exec.step }),
      ...(deadline === undefined ? {} : { deadline }),
    }
    const watched = runtime.watch.watch(jobId)
    const onAbort = (): void => void cancel(runtime, jobId, watched)
    exec.signal.addEventListener('abort', onAbort, { once: true })
    try {
      let stored: (string | null)[]
      /** `sent`: `queue.add` was called and has not been refused (it may be in flight or queued offline). */
      const enqueue: { add: 'not-sent' | 'sent' | 'refused' } = { add: 'not-sent' }
      try {
        stored = await bounded(runtime.enqueueTimeoutMs, async () => {
          await runtime.ready
          enqueue.add = 'sent'
          await runtime.queue
            .add(exec.toolName, data, {
              jobId,
              attempts: 1,
              removeOnComplete: { age: Math.ceil(runtime.retainMs / 1000) },
              removeOnFail: { age: Math.ceil(runtime.retainMs / 1000) },
            })
            .catch((error: unknown) => {
              enqueue.add = 'refused'
              throw error
            })
          // what the id holds now: this call, an earlier delivery of it, or another call
          return runtime.commands.hmget(runtime.keys.job(jobId), ...JOB_FIELDS)
        })
      } catch (error) {
        if (enqueue.add === 'sent') {
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
      runtime.watch.contact()
      const storedData = stored[JOB_FIELDS.indexOf('data')] ?? null
      // confirmed, then gone before it could be read back (a restart between the two): it may have run
      if (storedData === null) return outcomeValue({ kind: 'gone' }, exec, runtime.queueName, fail)
      if (!sameCall(storedData, data)) {
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
function sameCall(text: string, data: RemoteJobData): boolean {
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

/**
 * Cancels a job whose enqueue was not confirmed: the marker goes on the queue's own connection,
 * which holds the unconfirmed add, so it reaches Redis right after it (a worker checks the marker
 * before it starts a body), then the message. Best effort: nothing waits for it.
 */
function cancelUnconfirmed(runtime: DispatchRuntime, jobId: string): void {
  runtime.queue
    .getBackend()
    .client.then((client) => client.set(runtime.keys.cancelMarker(jobId), '1', { PX: runtime.retainMs }))
    // a worker that took it meanwhile hears the cancellation (our own client: it may fail, harmlessly)
    .then(() => runtime.commands.publish(runtime.keys.cancelChannel, jobId))
    .catch(() => undefined)
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
      // BullMQ fails a job only once a worker took it (and ours never throw): the body may have run
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.RemoteJobFailed,
          `Tool "${name}" was interrupted: BullMQ failed its job on queue "${queueName}" after a worker took it (${outcome.reason}). It may or may not have taken effect.`,
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
      // A worker may have run the body before the job vanished: a retry could do it twice.
      return fail(
        remoteFailure(
          'INTERRUPTED',
          RemoteFailureNames.JobLost,
          `Tool "${name}" was interrupted: its job disappeared from Redis (queue "${queueName}": a restart without persistence, an eviction or a removal) before it was answered. It may or may not have taken effect.`,
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
    // a worker finished the job, so it may well have run the body: only its answer is lost
    return fail(
      remoteFailure(
        'INTERRUPTED',
        RemoteFailureNames.RemoteJobFailed,
        `Tool "${name}" was interrupted: the worker's answer on queue "${queueName}" is not one this dispatcher reads (another protocol version?). It may or may not have taken effect.`,
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
          `Tool "${name}" failed on queue "${queueName}": the worker refused the job (${reply.message}); it was not run.`,
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
