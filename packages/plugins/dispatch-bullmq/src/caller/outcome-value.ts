import { toolMessages, type ToolExecContext, type ToolExecutionFailure } from '@deepseek-ai/dsh-tools'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import { readReply } from '../protocol/reply.ts'
import type { JobOutcome } from './job-state.ts'
import { remoteFailure } from './remote-failure.ts'

/**
 * What a remote body answers for its job's outcome: the worker's value (checked by the pipeline as
 * a local body's), the body's throw, or a failure of dispatch itself (left through `fail`). Every
 * outcome after which a worker may have run the body is `INTERRUPTED`.
 */
export function outcomeValue(
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
      // D12: without the worker's started mark the body never began (it was enqueued again as long
      // as it could be: this is what is left when it could not)
      return outcome.began
        ? fail(
            remoteFailure(
              'INTERRUPTED',
              RemoteFailureNames.WorkerLost,
              `Tool "${name}" was interrupted: the worker running it stopped before answering (its job lock expired). It may or may not have taken effect.`,
            ),
          )
        : fail(
            remoteFailure(
              'PIPELINE_FAILED',
              RemoteFailureNames.WorkerLost,
              `Tool "${name}" was not run: the workers that took its job on queue "${queueName}" stopped before starting its body, and it could not be dispatched again.`,
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
      return fail(notStarted(reply.reason, name, queueName))
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

/** A worker that did not start the body says why; each reason is the answer a local call would get. */
function notStarted(
  reason: 'cancelled' | 'expired' | 'unconfirmed',
  name: string,
  queueName: string,
): ToolExecutionFailure {
  switch (reason) {
    case 'cancelled':
      return remoteFailure(
        'ABORTED_BEFORE_DISPATCH',
        RemoteFailureNames.RemoteNotStarted,
        toolMessages.cancelledBeforeStart(name),
      )
    case 'expired':
      return remoteFailure(
        'TIMEOUT',
        RemoteFailureNames.RemoteNotStarted,
        `Tool "${name}" timed out before a worker started it (its deadline passed in the queue).`,
      )
    case 'unconfirmed':
      return remoteFailure(
        'PIPELINE_FAILED',
        RemoteFailureNames.RemoteNotStarted,
        `Tool "${name}" was not run: the worker on queue "${queueName}" could not confirm on its Redis replicas that it started the body (markReplicas), so it did not start it.`,
      )
    default: {
      const never: never = reason
      return never
    }
  }
}
