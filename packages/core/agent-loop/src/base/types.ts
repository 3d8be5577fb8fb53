import type {
  AssistantMessage,
  FinishReason,
  JsonValue,
  ProviderOptions,
  TokenUsage,
  ToolCallBlock,
  ToolChoice,
  UserMessage,
} from '@deepseek-ai/dsh-llm'
import type { MaybePromise } from './maybe-async.ts'
import type { PendingElicitation } from './elicitation-types.ts'
import type { AnySession, ApprovalAnswerKind, PendingApproval } from '@deepseek-ai/dsh-session'
import type { ExecutionMode, ToolExecutionResult } from '@deepseek-ai/dsh-tools'

/** Limits of one agent's loop. */
export interface AgentLoopConfig {
  /** Size of the rolling pool for parallel tool calls of one step (T23). A positive integer; default 10. */
  readonly maxParallelToolCalls: number
  /** Model steps one turn may take before it ends with reason `max-steps`. A positive integer; default 25. */
  readonly maxSteps: number
}

/**
 * `ctx.agentLoop`: what `executeToolCalls` reads from the scope it runs in. `createAgent` provides it
 * on the agent's scope; a harness that drives `executeToolCalls` itself provides its own.
 */
export interface AgentLoopService {
  readonly config: AgentLoopConfig
  /**
   * Where `tool/call` and `tool/result` (and the loop's own events) are recorded: a `Session`, or
   * an `AsyncSession` whose appends the loop awaits (a call's body starts once its `tool/call` is
   * durable; a result is committed once its `tool/result` is).
   */
  readonly session: AnySession
}

/**
 * `ctx.systemPrompt` (docs/spec.md T5), declared and installed by `@deepseek-ai/dsh-tools`
 * (`installSystemPrompt`). The loop asks it for the prompt text (`text`) and the tool schemas
 * (`tools`) of every step; a scope without one gets the agent's `system` and `ctx.tools.schemas()`.
 */
export type { SystemPromptService } from '@deepseek-ai/dsh-tools'

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    agentLoop?: AgentLoopService
  }
}

/** Why a turn ended (`stopped`: a `stopWhen` condition said so, T46). */
export type TurnEndReason = 'completed' | 'concluded' | 'stopped' | 'max-steps' | 'aborted' | 'error'

/** A step whose results are all committed, as a `stopWhen` condition sees it. */
export interface CommittedStep {
  readonly step: number
  /** The step's recorded assistant message. */
  readonly message: AssistantMessage
  /** Its tool calls, in model order (the model's blocks). */
  readonly toolCalls: readonly ToolCallBlock[]
  /** One result per call, in model order. */
  readonly results: readonly ToolExecutionResult[]
}

export interface StopConditionInput {
  readonly turn: number
  /** Steps the turn has taken, this one included (also those taken before a resume). */
  readonly steps: number
  /** The step that just committed. */
  readonly step: CommittedStep
}

/**
 * `createAgent({ stopWhen })`: asked after each committed step that would otherwise go on; `true`
 * ends the turn with reason `stopped`. Its `name` is recorded on `turn/end` (T46).
 */
export type StopCondition = (input: StopConditionInput) => MaybePromise<boolean>

/** Which `stopWhen` condition stopped a turn: its place in the list and its name (T46). */
export interface StoppedBy {
  readonly index: number
  readonly name: string
}
/**
 * `data` of a `step/prepare` session event: what `prepareStep` chose for step `step` (only the
 * fields it set; a model by its `provider` and `modelId`). Appended before the step's model call;
 * `resume` rebuilds a recorded step from it rather than asking `prepareStep` again.
 */
export interface StepPrepareEventData {
  turn: number
  step: number
  model?: { provider: string; modelId: string }
  system?: string
  tools?: string[]
  toolChoice?: ToolChoice
  providerOptions?: ProviderOptions
}

/**
 * How a run of a turn ended: a `TurnEndReason` (recorded as `turn/end`), or `paused` (durable
 * approvals: a call's approval is pending; nothing ends the turn in the session, and `resume` with
 * an answer continues it).
 */
export type TurnOutcomeReason = TurnEndReason | 'paused'

/** What a turn produced; also what `resume` returns for a session whose last turn had ended. */
export interface TurnResult {
  readonly turn: number
  readonly reason: TurnOutcomeReason
  /** Present when `reason` is `paused`: the approval the turn waits for (answer it with `resume`). */
  readonly pendingApproval?: PendingApproval
  /**
   * Present when `reason` is `paused` on a question a call put to a person (T66): answer it with
   * `resume({ elicitation })`.
   */
  readonly pendingElicitation?: PendingElicitation
  /** Model steps taken in the turn (including steps taken before a resume). */
  readonly steps: number
  /** The turn's last assistant message, if the model answered at least once. */
  readonly message: AssistantMessage | undefined
  /** Text of `message` (reasoning excluded); `''` without one. */
  readonly text: string
  /** Token usage summed over the turn's steps. */
  readonly usage: TokenUsage
  /** Present when `reason` is `stopped`: the `stopWhen` condition that ended the turn. */
  readonly stoppedBy?: StoppedBy
}

interface ToolCallEventBase {
  readonly turn: number
  readonly step: number
  /** Position of the call in the assistant message (model order). */
  readonly index: number
  /**
   * The call's id in the session (its `tool/call`'s `callId`): the model's own, unless the model
   * reused an id the session already had (then `<id>#<n>`; the block at `index` holds the model's).
   */
  readonly callId: string
  readonly name: string
  /** `performance.now()` when the event happened. */
  readonly at: number
}

/**
 * The call was handed to the step's scheduler. With eager dispatch (a streaming model, T40) each
 * call is queued the moment the model has finished writing it; otherwise every call of the step at
 * once, when the batch begins. `label` is `ctx.tools.describeCall`.
 */
export interface ToolCallQueuedEvent extends ToolCallEventBase {
  readonly type: 'tool-call-queued'
  readonly label: string
  /**
   * True when the call was queued while the model was still streaming its message: eager dispatch
   * may start it before the stream ends (a parallel-safe call whose tool does not declare
   * `eager: false`). `tool-call-start.duringStream` says whether it did.
   */
  readonly eager: boolean
}

/** The call took a pool slot (`parallel`) or its barrier turn (`exclusive`); its policy stage runs next. */
export interface ToolCallStartEvent extends ToolCallEventBase {
  readonly type: 'tool-call-start'
  readonly mode: ExecutionMode
  /** ms from queued to start. */
  readonly queueMs: number
  /** True when the call started before the model's stream ended (eager dispatch, T40). */
  readonly duringStream: boolean
}

/** A candidate result exists; for a parallel call its pool slot is free again. */
export interface ToolCallSettledEvent extends ToolCallEventBase {
  readonly type: 'tool-call-settled'
  /** ms from start to settled. */
  readonly runMs: number
}

/**
 * Time spent in each phase of one call. For a call that never started (an abort skipped it),
 * `queueMs` runs up to its synthetic commit and the other two are 0.
 */
export interface ToolCallTimings {
  /** queued → start. */
  readonly queueMs: number
  /** start → settled (policy, approval, guards, body). */
  readonly runMs: number
  /** settled → committed (post-execute, finalizeContent, recording `tool/result`). */
  readonly commitMs: number
}

/** The call's final result was recorded as `tool/result` (model order). */
export interface ToolCallEndEvent extends ToolCallEventBase {
  readonly type: 'tool-call-end'
  readonly result: ToolExecutionResult
  /** A UI label for the result (`ctx.tools.describeResult`: the tool's `presentResult`, else a default). */
  readonly resultLabel: string
  /** False for a call that never took a slot (abort, scheduler failure before it started). */
  readonly started: boolean
  readonly timings: ToolCallTimings
}

/**
 * A running call's body said how far it got (`exec.reportProgress`, T48), rate-limited by the
 * runtime's `progressIntervalMs`. Never recorded in the session and never shown to the model: a
 * view for a UI, like the other call events.
 */
export interface ToolCallReportedProgressEvent extends ToolCallEventBase {
  readonly type: 'tool-call-progress'
  readonly progress: number
  readonly total: number | undefined
  readonly message: string | undefined
}

/** How one step's tool calls move through the scheduler; a UI can draw the pool from these. */
export type ToolCallProgressEvent =
  | ToolCallQueuedEvent
  | ToolCallStartEvent
  | ToolCallReportedProgressEvent
  | ToolCallSettledEvent
  | ToolCallEndEvent

export interface TurnStartEvent {
  readonly type: 'turn-start'
  readonly turn: number
  readonly at: number
  /** True when `resume` continues a turn an earlier process left unfinished. */
  readonly resumed: boolean
}

export interface StepStartEvent {
  readonly type: 'step-start'
  readonly turn: number
  readonly step: number
  readonly at: number
}

/**
 * `prepareStep` chose something for this step (T43): what was recorded as `step/prepare`.
 * `fromRecord` when a resumed step was rebuilt from that record instead of asking `prepareStep`.
 */
export interface StepPreparedEvent {
  readonly type: 'step-prepared'
  readonly turn: number
  readonly step: number
  readonly at: number
  readonly prepared: StepPrepareEventData
  readonly fromRecord: boolean
}

interface ToolInputEventBase {
  readonly turn: number
  readonly step: number
  readonly at: number
  /**
   * The id the model gave the call. The call's `tool-call-queued` (same `index`) carries its session
   * id, which differs only when the model reused an id (T28).
   */
  readonly callId: string
  readonly name: string
  /** The call's position among the step's calls, in the order their inputs began. */
  readonly index: number
}

/** The model began writing a tool call's arguments (streamed steps, T45). */
export interface ToolInputStartEvent extends ToolInputEventBase {
  readonly type: 'tool-input-start'
}

/** More of the call's raw argument text: `delta` is the new piece, `text` all of it so far. */
export interface ToolInputDeltaEvent extends ToolInputEventBase {
  readonly type: 'tool-input-delta'
  readonly delta: string
  readonly text: string
}

/**
 * The call's argument text ends here: `complete` when the model finished it (its `tool-call`
 * follows and is queued), false when the stream failed or was aborted first (no call is made).
 */
export interface ToolInputEndEvent extends ToolInputEventBase {
  readonly type: 'tool-input-end'
  readonly text: string
  readonly complete: boolean
}

export type ToolInputEvent = ToolInputStartEvent | ToolInputDeltaEvent | ToolInputEndEvent

export interface ModelCallStartEvent {
  readonly type: 'model-call-start'
  readonly turn: number
  readonly step: number
  readonly at: number
  /** 1 for the step's first call of the model; more after a retry (`model-call-retry`). */
  readonly attempt: number
  /** Messages and tool schemas sent. */
  readonly messages: number
  readonly tools: number
}

export interface ModelCallEndEvent {
  readonly type: 'model-call-end'
  readonly turn: number
  readonly step: number
  readonly at: number
  /** As on `model-call-start`. */
  readonly attempt: number
  readonly durationMs: number
  readonly outcome: 'ok' | 'aborted' | 'error'
  /** Present when `outcome` is `ok`. */
  readonly message?: AssistantMessage
  readonly finishReason?: FinishReason
  readonly usage?: TokenUsage
  /** Present when `outcome` is `error`. */
  readonly error?: unknown
}

/**
 * The model call failed with an error marked retryable (`retryable: true`, as `ChatCompletionsError`
 * marks 429, 5xx, timeouts and dropped streams) before anything of the step was recorded or started:
 * the loop waits `delayMs` (the error's `retryAfterMs`, else backoff with jitter), then calls the
 * model again (`model-call-start` with the next `attempt`).
 */
export interface ModelCallRetryEvent {
  readonly type: 'model-call-retry'
  readonly turn: number
  readonly step: number
  readonly at: number
  /** The attempt that failed. */
  readonly attempt: number
  readonly delayMs: number
  readonly error: unknown
}

/**
 * Durable approvals: call `callId`'s approval is pending and recorded (`approval/request`); the
 * turn pauses once the calls before it have committed. `approval` is what `pendingApprovals` lists.
 */
export interface ApprovalRequestedEvent {
  readonly type: 'approval-requested'
  readonly turn: number
  readonly step: number
  readonly at: number
  /** Position of the call in its assistant message. */
  readonly index: number
  readonly approval: PendingApproval
}

/** `resume` recorded the answer (`approval/answer`) and continues the paused step. */
export interface ApprovalAnsweredEvent {
  readonly type: 'approval-answered'
  readonly turn: number
  readonly step: number
  readonly at: number
  readonly callId: string
  readonly answer: ApprovalAnswerKind
}

/**
 * What eager dispatch did in one streamed step with tool calls, computed from the `performance.now()`
 * timestamps the step recorded (start, settled and commit of each call, and the end of the stream),
 * never from a model of what would have happened. `runMs` of a call is start → settled.
 */
export interface EagerDispatchFigures {
  /** When the model's stream ended: its `finish` part arrived, it failed, or the abort came. */
  readonly streamEndedAt: number
  /** Calls queued while the stream still ran. */
  readonly queuedDuringStream: number
  /** Calls that started before `streamEndedAt`. */
  readonly startedDuringStream: number
  /**
   * Tool time moved ahead of the stream's end: the sum over calls of the part of each call's run
   * (start → settled) that lay before `streamEndedAt`, i.e. Σ max(0, min(settled, streamEndedAt) −
   * start). Parallel calls each count, so it can exceed the time saved on the step's makespan.
   */
  readonly overlapMs: number
  /**
   * How much earlier the step's calls were all committed than they could have been had every call
   * waited for the stream's end with the same run times: max(0, streamEndedAt + the longest runMs −
   * the last commit). Without eager dispatch no call could start before `streamEndedAt`, so the
   * longest one could not settle before `streamEndedAt + runMs`; this is a lower bound on the time
   * saved (commit costs and waits for pool slots only add to the other side). 0 when no call
   * started during the stream.
   */
  readonly savedMs: number
}

export interface StepEndEvent {
  readonly type: 'step-end'
  readonly turn: number
  readonly step: number
  readonly at: number
  readonly durationMs: number
  /** Tool calls the model made in this step (the calls of its recorded message). */
  readonly toolCalls: number
  readonly concludesTurn: boolean
  /** Present for a streamed step (eager dispatch on) in which the model called tools. */
  readonly eager?: EagerDispatchFigures
}

/** The run of the turn is over (for `paused`, the turn itself goes on after `resume`). */
export interface TurnEndEvent {
  readonly type: 'turn-end'
  readonly turn: number
  readonly at: number
  readonly durationMs: number
  readonly result: TurnResult
  /** Present when `result.reason` is `error`: what `run` rejects with. */
  readonly error?: unknown
}

/**
 * The model-facing event stream of a turn, one naming rule (`x-start` / `x-end`). In order:
 * `turn-start`, then per step `step-start`, `step-prepared` (with `prepareStep`), `model-call-start`,
 * the `tool-input-*` events while a streamed call is written, `model-call-end`, the tool-call
 * progress events, `step-end`; finally `turn-end`.
 */
export type AgentEvent =
  | TurnStartEvent
  | StepStartEvent
  | StepPreparedEvent
  | ModelCallStartEvent
  | ModelCallEndEvent
  | ModelCallRetryEvent
  | ToolInputEvent
  | ToolCallProgressEvent
  | ApprovalRequestedEvent
  | ApprovalAnsweredEvent
  | StepEndEvent
  | TurnEndEvent

/** `data` of a `turn/start` session event. */
export interface TurnStartEventData {
  turn: number
  /**
   * On a session's first `turn/start` only: a random id naming the session, the scope of its calls'
   * idempotency keys (T49).
   */
  sessionId?: string
}

/** `data` of a `turn/end` session event (`stoppedBy` with reason `stopped`). */
export interface TurnEndEventData {
  turn: number
  reason: TurnEndReason
  steps: number
  stoppedBy?: StoppedBy
}

/**
 * `data` of a `user/message` session event: the turn's input (`source: 'user'`, step 1 of the turn)
 * or the contexts tool results deferred, joined FIFO for the step they feed (`source: 'tool-context'`).
 */
export interface UserMessageEventData {
  turn: number
  step: number
  message: UserMessage
  source: 'user' | 'tool-context'
}

/**
 * `data` of a `tool/late-outcome` session event: how the body of call `callId` ended after its
 * result had been recorded (`value` omitted when the body returned nothing).
 */
export interface ToolLateOutcomeEventData {
  turn: number
  step: number
  callId: string
  outcome: { kind: 'value'; value?: JsonValue } | { kind: 'error'; message: string } | { kind: 'abandoned' }
}

/** `data` of an `assistant/message` session event. */
export interface AssistantMessageEventData {
  turn: number
  step: number
  message: AssistantMessage
  finishReason: FinishReason
  usage: TokenUsage
}

/** Receives one deferred context (T27); called in model order after the step's batch committed. */
export type AcceptContext = (
  text: string,
  source: { readonly callId: string; readonly toolName: string },
) => void
