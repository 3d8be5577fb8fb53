import type { AssistantMessage, ModelRequest, TokenUsage } from '@deepseek-ai/dsh-llm'
import type { PendingApproval } from '@deepseek-ai/dsh-session'
import type { SessionGrant } from './session-grants.ts'
import type { TurnRunner } from './run-turn.ts'
import type { AgentEvent, EagerDispatchFigures } from './types.ts'

/** One model step of a turn, as `runTurn` hands it to a step runner. */
export interface StepRun {
  readonly runner: TurnRunner
  readonly turn: number
  readonly step: number
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly emit: (event: AgentEvent) => void
  /** The assistant message of the step was recorded (called before its calls run). */
  readonly onRecorded: (message: AssistantMessage, usage: TokenUsage) => void
  /** `session` answers recorded in the log (durable approvals), read when the turn started. */
  readonly grants: readonly SessionGrant[]
}

/** How a step ended, when it did not throw. */
export interface StepReport {
  /** Tool calls of the recorded assistant message (0 when none was recorded). */
  readonly toolCalls: number
  readonly concludesTurn: boolean
  /** Streamed steps with tool calls: what eager dispatch did. */
  readonly eager: EagerDispatchFigures | undefined
  /** Set when the turn must end after this step: the model call (or stream) was aborted or failed. */
  readonly stop:
    { readonly kind: 'aborted' } | { readonly kind: 'failed'; readonly error: unknown } | undefined
  /** Set when the step paused at a pending approval (recorded): the turn pauses. */
  readonly paused?: PendingApproval
}
