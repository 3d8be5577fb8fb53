import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type AgentLoopErrorCode =
  /** A function got an argument of the wrong shape. */
  | 'INVALID_ARGUMENT'
  /** `AgentLoopConfig` values out of range, or unknown config keys. */
  | 'INVALID_CONFIG'
  /** A service the loop needs (`ctx.agentLoop`, `ctx.tools`) is not provided in the scope. */
  | 'NOT_INSTALLED'
  /** `run`, `stream` or `resume` while another turn of the same agent is running. */
  | 'BUSY'
  /** The agent was disposed. */
  | 'DISPOSED'
  /** The session ends in an unfinished turn: call `agent.resume()` before starting a new one. */
  | 'RESUME_REQUIRED'
  /** The model answered something that is not an assistant message the loop can record. */
  | 'INVALID_MODEL_RESPONSE'
  /**
   * A streamed step whose output was cut off (finish reason `length`, `content-filter` or `error`)
   * after the model had written tool calls: they were answered, not run to completion (T40).
   */
  | 'TRUNCATED_RESPONSE'
  /** A session event the loop reads back does not have the shape the loop wrote. */
  | 'INVALID_SESSION'
  /** Some recorded `tool/call` events could not be answered with a `tool/result` (the session refused). */
  | 'UNRECORDED_RESULTS'
  /** `resume` was given an answer for a call whose approval is not pending (durable approvals). */
  | 'APPROVAL_NOT_PENDING'
  /** `resume` was given an elicitation answer for a call with no pending elicitation (T66). */
  | 'ELICITATION_NOT_PENDING'
  /** `prepareHistory` answered a history the loop cannot send: an unknown item, or a tool result parted from its call. */
  | 'INVALID_HISTORY'
  /** `prepareStep` threw, or returned a choice the step cannot take (T43). */
  | 'INVALID_STEP_PREPARATION'
  /** A `stopWhen` condition threw or answered something other than a boolean (T46). */
  | 'STOP_CONDITION_FAILED'

/** Machine-readable facts beside the message. */
export interface AgentLoopErrorDetails {
  /** `UNRECORDED_RESULTS`: the recorded calls still without a `tool/result`, in model order. */
  readonly unanswered?: readonly { readonly callId: string; readonly callSeq: number }[]
}

export interface AgentLoopErrorOptions extends DshErrorOptions<AgentLoopErrorCode> {
  readonly details?: AgentLoopErrorDetails
}

/**
 * Misuse of the agent loop (bad arguments, bad config, missing services, concurrent turns) and the
 * few loop failures that are not tool failures (an invalid model response, a session that refused a
 * result). Tool failures never throw: they are `ToolExecutionFailure` results.
 */
export class AgentLoopError extends DshError<AgentLoopErrorCode> {
  readonly details: Readonly<AgentLoopErrorDetails>

  constructor(options: AgentLoopErrorOptions) {
    super('agentLoop', options)
    this.details = Object.freeze({ ...options.details })
  }

  static isInstance(value: unknown): value is AgentLoopError {
    return DshError.isOfFamily(value, 'agentLoop')
  }
}

export function invalidArgument(message: string): AgentLoopError {
  return new AgentLoopError({ code: 'INVALID_ARGUMENT', message })
}
