import type { Context } from '@deepseek-ai/dsh-context'
import type { AssistantMessage, LanguageModel, ModelRequest, TokenUsage } from '@deepseek-ai/dsh-llm'
import type { AnySession, PendingApproval } from '@deepseek-ai/dsh-session'
import type { RetrySleep, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import type { PrepareStep } from './prepare-step.ts'
import type { AgentEvent, AgentLoopConfig, EagerDispatchFigures, StopCondition } from '../base/types.ts'
import type { SessionGrant } from '../log/session-grants.ts'
import type { ContextPolicy } from '../base/context-types.ts'

/** Model-level retry as resolved from `createAgent({ modelRetry })` (`resolveModelRetry`). */
export interface ModelRetry {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly sleep: RetrySleep
  readonly random: (() => number) | undefined
}

/** What stays the same for every turn of one agent. */
export interface TurnRunner {
  /** The agent's scope: provides `agentLoop` and sees `tools` (and `systemPrompt`, if any). */
  readonly ctx: Context
  readonly model: LanguageModel
  readonly session: AnySession
  readonly system: string | undefined
  readonly config: AgentLoopConfig
  /** Streamed steps with eager dispatch (T40) when the model has `stream`; else `model.step`. */
  readonly eagerToolExecution: boolean
  /** Model-level retry (`createAgent({ modelRetry })`). */
  readonly modelRetry: ModelRetry
  /** Call repair, tool output cut and history compaction (`createAgent`'s context options). */
  readonly context: ContextPolicy
  /** `createAgent({ prepareStep })` (T43). */
  readonly prepareStep: PrepareStep | undefined
  /** `createAgent({ stopWhen })`, in order (T46). */
  readonly stopWhen: readonly StopCondition[]
}

/** One model step of a turn, as `runTurn` hands it to a step runner. */
export interface StepRun {
  readonly runner: TurnRunner
  readonly turn: number
  readonly step: number
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly emit: (event: AgentEvent) => void
  /**
   * Someone listens to `emit` (`run`'s `onEvent`, `stream`): the calls' progress events
   * (`tool-call-queued` … `tool-call-end`) are built only then. Their timings are recorded either way.
   */
  readonly listening: boolean
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
  /** The committed results of the step's calls, in model order (when its batch finished). */
  readonly results?: readonly ToolExecutionResult[]
}
