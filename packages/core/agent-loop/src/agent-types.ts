import type { Context } from '@deepseek-ai/dsh-context'
import type { LanguageModel, UserMessage } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import type { ApprovalReply } from './turn/answer-pending-approval.ts'
import type { ElicitationReply } from './base/elicitation-types.ts'
import type { ModelRetryOptions } from './step/model-retry.ts'
import type { PrepareStep } from './step/prepare-step.ts'
import type { StopCondition } from './turn/stop-conditions.ts'
import type { AgentEvent, AgentLoopConfig, TurnResult } from './base/types.ts'
import type { PrepareHistory, RepairToolCall, ToolOutputPolicy } from './base/context-types.ts'

/** `S` is the session's own type, so `agent.session` keeps it (a `Session`, or an `AsyncSession` such as a database store's). */
export interface CreateAgentOptions<S extends AnySession = AnySession> {
  /** The parent scope; it must have `ctx.tools` (installTools). The agent gets a child scope. */
  readonly ctx: Context
  /** Names the agent's scope. */
  readonly name: string
  readonly model: LanguageModel
  /**
   * Where the agent records its turns; may already hold earlier turns (turn numbers continue). An
   * `AsyncSession` (a remote store) works the same: the loop awaits every append, so whatever it
   * reports as done is durable.
   */
  readonly session: S
  /** System text sent with every model step. */
  readonly system?: string
  readonly config?: Partial<AgentLoopConfig>
  /**
   * Eager dispatch (T40, default `true`): when the model can stream, each tool call is handed to the
   * scheduler the moment the model has finished writing it, and a parallel-safe call may start
   * while the model still streams. `false` waits for the whole message (`model.step`), as a model
   * without `stream` always does.
   */
  readonly eagerToolExecution?: boolean
  /**
   * Model-level retry: a model call that fails with an error marked `retryable` (429, 5xx, a
   * dropped stream) before anything of its step was recorded or started is made again, after the
   * error's `retryAfterMs` or a backoff with jitter, up to `maxAttempts` calls per step (default 3).
   * `false` turns it off.
   */
  readonly modelRetry?: ModelRetryOptions | false
  /**
   * Called before a call runs when its arguments do not parse, fail the tool's schema, or it names
   * no visible tool (T54): answer a repaired call or nothing. What it did is recorded on the call's
   * `tool/call` (`repaired`, beside the model's own text). `repairJsonSyntax()` is one.
   */
  readonly repairToolCall?: RepairToolCall
  /**
   * What the model sees of a tool result (T56): by default text past 30 000 characters is cut to
   * its head and tail with a marker saying how to read the rest; the session keeps it whole.
   */
  readonly toolOutput?: ToolOutputPolicy
  /**
   * Called before each model call with the rebuilt history and a token estimate (T57); may drop or
   * replace old items. Recorded as `history/compaction`. `compactToolResults({ windowTokens })` is one.
   */
  readonly prepareHistory?: PrepareHistory
  /**
   * Called before each model step (T43) with `{ turn, step, history, model, system, tools }`; may
   * return, for that step only, the `model`, the `system` text, the `tools` offered (a subset by
   * name: the step runs in a child scope restricted to them, and a hidden tool the model calls is
   * refused with one result), a `toolChoice` and `providerOptions`. What it chose is recorded as
   * `step/prepare`; a resumed step that already ran is rebuilt from that record.
   */
  readonly prepareStep?: PrepareStep
  /**
   * Stop conditions (T46), checked in order after each committed step that would go on: the first
   * that answers `true` ends the turn with reason `stopped`, and `turn/end` records it as
   * `stoppedBy: { index, name }`. Helpers: `stepCountIs(n)`, `hasToolCall(name)`; any
   * `({ turn, steps, step }) => boolean | Promise<boolean>` works.
   */
  readonly stopWhen?: StopCondition | readonly StopCondition[]
}

export interface RunOptions {
  /** Aborts the turn: a model call in flight is abandoned, a tool batch drains (T26). */
  readonly signal?: AbortSignal
  /** Every `AgentEvent` of the turn. Must not throw (a throw is logged and the event dropped). */
  readonly onEvent?: (event: AgentEvent) => void
}

export interface ResumeOptions extends RunOptions {
  /**
   * The answer to the session's pending approval (durable approvals): `{ callId, answer: 'once' }`,
   * `{ callId, answer: 'session', scope?: 'arguments' | 'tool' }` or
   * `{ callId, answer: 'reject', feedback? }`. `callId` must name the pending call
   * (`pendingApprovals(session.events())`), else `APPROVAL_NOT_PENDING`.
   */
  readonly approval?: ApprovalReply
  /**
   * The answer to the session's pending elicitation (T66: a call's question to a person that the
   * process holding the call never got answered): `{ callId, action: 'accept', content }`,
   * `{ callId, action: 'decline' }` or `{ callId, action: 'cancel' }`. `callId` must name a call
   * with a pending elicitation (`result.pendingElicitation`), else `ELICITATION_NOT_PENDING`.
   */
  readonly elicitation?: ElicitationReply
}

export interface StreamOptions {
  readonly signal?: AbortSignal
}

/** The events of one turn; iterate it once. A failed turn throws its error after `turn-end`. */
export interface AgentEventStream extends AsyncIterable<AgentEvent> {
  /** The turn's result, whether or not the stream is read. */
  readonly result: Promise<TurnResult>
}

export interface Agent<S extends AnySession = AnySession> {
  readonly name: string
  /** The agent's scope (a child of the `ctx` it was created from), providing `agentLoop`. */
  readonly ctx: Context
  readonly session: S
  readonly config: AgentLoopConfig
  readonly model: LanguageModel
  /** Whether steps stream with eager dispatch (`CreateAgentOptions.eagerToolExecution`). */
  readonly eagerToolExecution: boolean
  /** True while a turn runs; one turn at a time. */
  readonly running: boolean
  readonly disposed: boolean
  /**
   * Runs one turn: records `turn/start` and the `user/message`, then steps until the model calls no
   * tool, a result concludes the turn, `maxSteps` is reached or the signal aborts; records
   * `turn/end`. Resolves with the result (also for an aborted turn); rejects with the error of a
   * turn that ended with reason `error`. Rejects with `RESUME_REQUIRED` when the session ends in an
   * unfinished turn.
   */
  run(input: string | UserMessage, options?: RunOptions): Promise<TurnResult>
  /** `run` as an event stream. */
  stream(input: string | UserMessage, options?: StreamOptions): AgentEventStream
  /**
   * Continues a session an earlier process left unfinished: answers every unanswered `tool/call`
   * with `INTERRUPTED`, then runs the last turn's next steps. For a session whose last turn ended it
   * only returns that turn's result; for a session with no turn, `undefined`. A session paused at a
   * pending approval continues with `options.approval` (recorded as `approval/answer`), and without
   * it returns its `paused` result again, unchanged.
   */
  resume(options?: ResumeOptions): Promise<TurnResult | undefined>
  /** Aborts a running turn and disposes the agent's scope (once that turn has recorded its end). Idempotent. */
  dispose(): void
}
