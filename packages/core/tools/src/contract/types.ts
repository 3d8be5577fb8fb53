import type { Context, EmitEvent, ScopeInfo, WaterfallEvent } from '@deepseek-ai/dsh-context'
import type { CallId, JsonObject, JsonValue, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ToolErrorCode } from './codes.ts'
import type { LateToolOutcome } from './late-tool-outcome.ts'

/** A JSON Schema object describing a tool's arguments (root `type: "object"`). */
export type JsonSchemaObject = JsonObject

/** Outcome of validating raw JSON arguments against a tool's schema. */
export type ArgumentValidation<Args> =
  | { readonly ok: true; readonly value: Args }
  | { readonly ok: false; readonly issues: readonly { readonly path: string; readonly message: string }[] }

/** What a tool body sees besides its arguments. */
export interface ToolExecContext {
  readonly callId: CallId
  readonly toolName: string
  /** Aborts on caller cancellation and on timeout. A body should stop when it fires. */
  readonly signal: AbortSignal
  /** The scope (agent ctx) the call runs in. */
  readonly ctx: Context
  readonly turn: number | undefined
  readonly step: number | undefined
  /** Adds text for the next step's user message (delivered FIFO after the batch commits). */
  deferContext(text: string): void
  /** Ends the turn after this step's batch commits (only on success). */
  concludeTurn(): void
  /**
   * Says how far the body got (`{ progress: 3, total: 10, message: 'copying' }`): a
   * `tools/progress` event on the scope (the agent loop turns it into a `tool-call-progress`
   * event). Progress is never recorded as a result and never reaches the model. Reports closer
   * together than `progressIntervalMs` are dropped (the one that reaches `total` never is), and so
   * is anything reported once the call's result exists. Throws a TypeError for a report that is not
   * `{ progress: finite number, total?: finite number, message?: string }`.
   */
  reportProgress(report: ToolProgressReport): void
  /**
   * The hooks the driver passed on the call's input (`nestedCallHooks`) for the calls this call
   * makes itself: the `run_code` transport runs a program's nested calls as a batch with them, so
   * the loop records each one in the session. `undefined` when the driver records nothing.
   */
  readonly nestedCallHooks?: ToolBatchHooks | undefined
  /**
   * The `effects` the driver passed on the call's input, for the calls this call makes itself: the
   * `run_code` transport gives them to a program's nested calls, so each has a key in the driver's
   * scope and, for a tool with `effects: 'external'`, its durable start (T63). `undefined` when the
   * driver passed none.
   */
  readonly nestedCallEffects?: ToolCallEffects | undefined
  /**
   * The call's idempotency key (T49): the same for every run of this call — a `withRetry` attempt,
   * a re-run after a crash and a resume in another process, a remote redelivery — and different for
   * every other call. The attempt is not part of it: every attempt of a call must land on the one
   * effect. `<scope>:<callId>`, the scope being the one the driver passed (`input.effects`; the agent
   * loop's is the session's id), or the call id alone when the driver passed none. Send it to an
   * external API (an `Idempotency-Key` header) so the effect happens once. Built on first read.
   */
  readonly idempotencyKey: string
}

/**
 * What a driver that records its calls passes on each input (`input.effects`), usually one object
 * shared by every call of a batch: the scope of the calls' idempotency keys, and for tools that
 * declare `effects: 'external'` a hook run (and awaited) right before the body starts (T50).
 */
export interface ToolCallEffects {
  /** Prefix of every `exec.idempotencyKey` (`<idempotencyScope>:<callId>`): a session's id. */
  readonly idempotencyScope: string
  /**
   * Called right before the body of a tool that declares `effects: 'external'`, after every policy
   * stage and wrapper, and awaited: the agent loop records `tool/began` durably here. When it throws
   * or rejects, the body does not run and the call is `TOOL_FAILED`.
   */
  readonly onBodyStart?: (call: BodyStart) => void | PromiseLike<void>
  /**
   * T64: the call is being answered again after its process stopped, and its body may already have
   * begun, so no body may start again (its tool is not idempotent). Policy is not asked again (it
   * passed the call before the body began) and the tool's own body never runs: the call is
   * `INTERRUPTED` unless a `tools/execute` wrapper put a body in its place that only collects the
   * outcome kept under the call's idempotency key (one marked with `REATTACHING_BODY`: remote
   * dispatch, which also dispatches again a job it can prove never began, T73), whose value is then
   * checked as any body's.
   */
  readonly reattachOnly?: boolean
}

/** What `ToolCallEffects.onBodyStart` learns about the body about to start. */
export interface BodyStart {
  readonly callId: CallId
  readonly toolName: string
  /** The tool's `idempotent` declaration. */
  readonly idempotent: boolean
  readonly idempotencyKey: string
}

/** What a body reports with `exec.reportProgress`. */
export interface ToolProgressReport {
  /** How far the body got, in the body's own unit (a count, bytes, a percentage). */
  readonly progress: number
  /** The `progress` that means done, when the body knows it. */
  readonly total?: number | undefined
  /** A short line for a person (cut to 500 characters). */
  readonly message?: string | undefined
}

/** `tools/progress`: a body's report, with the call it belongs to (frozen). */
export interface ToolProgress {
  readonly callId: CallId
  readonly toolName: string
  readonly turn: number | undefined
  readonly step: number | undefined
  readonly progress: number
  readonly total: number | undefined
  readonly message: string | undefined
}

/** What `finalizeContent` receives: the call's identity (the signal has settled by then). */
export interface FinalizeContext {
  readonly callId: CallId
  readonly toolName: string
  readonly ctx: Context
}

/**
 * A tool: what the model sees (`name`, `description`, `parameters`) and how it runs. Build one with
 * `defineTool` (zod) or `defineJsonSchemaTool` from `@deepseek-ai/dsh-tools/json-schema` (raw JSON
 * Schema, validated by Ajv); a plain object of this shape may be registered too when it brings its
 * own `validate`.
 */
export interface ToolDefinition<Args = unknown, Value = unknown> {
  /** `^[A-Za-z0-9_-]{1,64}$` (what OpenAI-style providers accept). */
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaObject
  /** Validates parsed JSON arguments into `Args`. Must not throw. Required to register. */
  validate?(input: JsonObject): ArgumentValidation<Args>
  /** The body. May throw; a throw becomes a `TOOL_FAILED` result. */
  execute(args: Args, exec: ToolExecContext): Value | Promise<Value>
  /** Turns the value into model-facing content. Default: strings as text, everything else as JSON text. */
  toContent?(value: Value): string | readonly ToolResultContent[]
  /** Checks the value the body returned; failure becomes `INVALID_TOOL_OUTPUT`. Must not throw. */
  validateOutput?(value: unknown): ArgumentValidation<unknown>
  /**
   * JSON Schema of the value the body resolves with. Never sent as a tool schema (T2); the Code
   * Mode SDK declares it as the call's result type (`unknown` without one).
   */
  readonly outputSchema?: JsonSchemaObject
  /**
   * Last content-only step: synchronous, runs exactly once per outcome (success or failure), after
   * post-execute. Captured when the call starts, so re-registering mid-call does not change it.
   */
  finalizeContent?(exec: FinalizeContext, result: ToolExecutionResult): readonly ToolResultContent[]
  /** One-line UI label for a call (`ctx.tools.describeCall`). Failures are contained. */
  presentCall?(args: Args): string
  /** One-line UI label for a committed result (`ctx.tools.describeResult`). Failures are contained. */
  presentResult?(args: Args, result: ToolExecutionResult): string
  /** `true` (exactly) lets calls run in the parallel pool; anything else makes them barriers (T21). */
  isConcurrencySafe?(args: Args): boolean
  /**
   * Resource keys a call touches (e.g. the path it writes). Parallel calls sharing a key never overlap;
   * calls with disjoint keys may. Declaring keys without `isConcurrencySafe` makes a call parallel.
   */
  concurrencyKey?(args: Args): string | readonly string[] | undefined
  /**
   * Enforced by the shipped `tools/execute` timeout wrapper (T17); wins over the runtime's
   * `defaultTimeoutMs` (T47). `0` or `Infinity`: this tool has no timeout.
   */
  readonly timeoutMs?: number
  /**
   * T48: each `exec.reportProgress` restarts the call's timeout, so `timeoutMs` (the tool's or the
   * runtime default) becomes the longest the body may go without reporting; `maxMs` bounds the
   * whole body whatever it reports. Without a timeout it changes nothing.
   */
  readonly progressResetsTimeout?: { readonly maxMs: number }
  /**
   * `false` keeps a parallel-safe call from starting while the model is still streaming its message
   * (T40): it waits for the stream's end, as an exclusive call does. Default: may start early.
   */
  readonly eager?: boolean
  /**
   * `true` declares that running the body twice for one call has the effect of running it once (a
   * read, a PUT with a key): `withRetry` requires it before it retries the body, and the agent loop
   * runs such a call again on resume when its body began and was never answered (T51).
   */
  readonly idempotent?: boolean
  /**
   * `'external'` declares that the body has effects outside the process (a deploy, a payment, an
   * email). The agent loop then records `tool/began` durably before the body runs, so that after a
   * crash a call that never began is run on resume and one that began is told apart (T50); such a
   * call never starts before its message has been recorded (as with `eager: false`).
   */
  readonly effects?: 'external'
}

/** A definition with its argument and value types erased, as the registry stores it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any>

/** One call to run. `arguments` is the model's raw JSON string (or an already-parsed object). */
export interface ToolExecutionInput {
  readonly callId: CallId
  readonly name: string
  readonly arguments: string | JsonObject
  readonly signal?: AbortSignal
  readonly turn?: number
  readonly step?: number
  /**
   * The parent token of a nested call (T7, T33): the `run_code` call whose program made it. A call
   * with a parent is checked as `origin: 'program'` by `mayCallTool`; one without is a model-direct
   * call. Only the transport sets it: a model's tool-call block cannot carry one.
   */
  readonly parent?: ToolCallParent
  /**
   * For a call that makes calls of its own (the `run_code` transport): hooks its nested batch
   * reports to, in program order, so the driver can record each nested call (the agent loop
   * appends a `tool/call` / `tool/result` pair per nested call). The body reads them as
   * `exec.nestedCallHooks`.
   */
  readonly nestedCallHooks?: ToolBatchHooks
  /**
   * Durable approvals, for a scheduler that records its calls (the agent loop): how this call's
   * `ask` may be settled beyond `ctx.approval`. Only `prepare` and `createToolBatch` accept
   * `{ kind: 'suspendable' }`; `execute`, `executeBatch` and `runToolBatch` refuse it.
   */
  readonly approval?: ToolCallApproval
  /** The idempotency scope and the body-start hook (`ToolCallEffects`, T49, T50). */
  readonly effects?: ToolCallEffects
}

/** The outer call a nested call belongs to. */
export interface ToolCallParent {
  readonly callId: CallId
}

/**
 * - `suspendable`: an approval service answering `pending` suspends the call (`prepare` returns
 *   stage `approval-pending`, with no result) instead of denying it; the driver records the pending
 *   approval and runs the call again later with the answer.
 * - `answered`: the answer a person gave for this call's suspended `ask`, recorded by the driver.
 *   `reject` answers the call with `DENIED` (`ApprovalRejected`) before any policy runs; `once` and
 *   `session` answer the `ask` that policy raises again, in place of `ctx.approval` (a policy that
 *   now denies still denies; guards still run).
 */
export type ToolCallApproval =
  { readonly kind: 'suspendable' } | { readonly kind: 'answered'; readonly answer: ApprovalAnswer }

/**
 * A person's answer to a pending approval, as data (it is recorded in the session):
 * `once` approves this call; `session` approves it and later calls of the tool in the session
 * (`scope`: `'arguments'`, the default, the same arguments; `'tool'`, every call of the tool);
 * `reject` refuses it, with optional feedback for the model.
 */
export type ApprovalAnswer =
  | { readonly answer: 'once' }
  | { readonly answer: 'session'; readonly scope?: 'arguments' | 'tool' }
  | { readonly answer: 'reject'; readonly feedback?: string }

export interface ToolExecutionSuccess {
  readonly isError: false
  readonly content: readonly ToolResultContent[]
  readonly value?: JsonValue
  readonly meta?: JsonValue
  readonly additionalContexts?: readonly string[]
  readonly concludesTurn?: boolean
  /**
   * Present only when a `tools/pre-execute` policy rewrote the arguments (`allow({ args })`): the
   * JSON text of the arguments the call was decided on and ran with. The model's own text stays in
   * the call (and the assistant message); the agent loop records this on the `tool/result`.
   */
  readonly rewrittenArguments?: string
}

export interface ToolExecutionFailure {
  readonly isError: true
  readonly content: readonly ToolResultContent[]
  readonly error: {
    readonly message: string
    /** `code` is one of `ToolErrorCodes` (T16): a result carrying any other code is refused. */
    readonly info?: { readonly name: string; readonly code: ToolErrorCode }
  }
  readonly meta?: JsonValue
  readonly additionalContexts?: readonly string[]
  /** As on a success: the arguments a policy rewrote the call to (`allow({ args })`). */
  readonly rewrittenArguments?: string
}

/** T15. Returned frozen and lossless-JSON from every entry point (T14). */
export type ToolExecutionResult = ToolExecutionSuccess | ToolExecutionFailure

/**
 * Validated tool arguments as policy and the body see them: the schema's output (after zod
 * transforms), deep-frozen. Usually plain JSON; a schema that transforms a field into something
 * else (a `Date`, a `URL`) puts that object here, exactly as the body receives it.
 */
export type ToolArguments = { readonly [key: string]: unknown }

/**
 * What listeners and guards learn about a call. Frozen. `args` is exactly what the body will
 * receive (T36): the validated, transformed arguments, the same deep-frozen object. When there
 * are no validated arguments (unknown tool, invalid arguments, a synthetic result) it is the parsed
 * JSON the model sent, or `{}` when that was not JSON. The model's original text is the input's
 * `arguments`, which the session records.
 */
export interface ToolCallInfo {
  readonly callId: CallId
  readonly toolName: string
  readonly args: ToolArguments
  readonly scope: ScopeInfo
  readonly turn: number | undefined
  readonly step: number | undefined
  /** Present on a nested call (made by a `run_code` program): the outer call's id. */
  readonly parentCallId?: CallId
}

export type PreExecuteDecision =
  /**
   * `args` (optional) rewrites the call's arguments, as Claude Code's PreToolUse `updatedInput`
   * does: a whole JSON object, validated again like the model's (`INVALID_ARGUMENTS` when it breaks
   * the schema). The pre-execute waterfall then runs again on the rewritten call, so every listener
   * decides on what the body will run with (T36); guards, approval and the body see the rewritten,
   * validated arguments, and the result carries them as `rewrittenArguments`.
   */
  | { readonly type: 'allow'; readonly args?: JsonObject }
  | { readonly type: 'deny'; readonly reason: string }
  | { readonly type: 'ask'; readonly reason?: string }
  /** A policy answers the call itself (e.g. a cache); the answer still goes through post-execute. */
  | {
      readonly type: 'respond'
      readonly content: string | readonly ToolResultContent[]
      readonly value?: JsonValue
    }

/**
 * What a `tools/post-execute` listener decides (T37). The result it saw carries the contexts a
 * wrapper and the body added (in that order). `accept` keeps them, or `replaceContexts` replaces
 * them (e.g. `[]` to withhold a secret); `additionalContexts` are appended after them. `block`
 * drops them: only the block's own `additionalContexts` go on.
 */
export type PostExecuteDecision =
  | {
      readonly type: 'accept'
      readonly content?: string | readonly ToolResultContent[]
      readonly value?: JsonValue
      readonly replaceContexts?: readonly string[]
      readonly additionalContexts?: readonly string[]
    }
  | { readonly type: 'block'; readonly feedback: string; readonly additionalContexts?: readonly string[] }

export interface PostExecuteCall extends ToolCallInfo {
  readonly result: ToolExecutionResult
}

/**
 * A body run in place of the tool's own `execute`: same arguments (the validated, frozen
 * `call.args`), same `exec`, and its value is checked exactly like the tool's own.
 */
export type ToolBody = (args: ToolArguments, exec: ToolExecContext) => unknown

/**
 * What a `tools/execute` wrapper sees. It may pass a replacement `signal` to `next` (linked with the
 * call's, never instead of it), and a replacement `body` that runs where the tool's `execute` would
 * (remote dispatch): `next({ ...call, body })`. Nothing else a wrapper passes is read.
 */
export interface ExecuteCall extends ToolCallInfo {
  readonly signal: AbortSignal
  readonly timeoutMs: number | undefined
  /**
   * T64: the driver asks only for the outcome kept under the call's key (`effects.reattachOnly`):
   * a wrapper that replaces the body must pass one that starts nothing that may already have
   * happened (marked `REATTACHING_BODY`), or none; the tool's own body does not run.
   */
  readonly reattachOnly?: true
  /** Set only by an outer wrapper that replaced the body; the pipeline never sets it. */
  readonly body?: ToolBody
}

export type GuardVerdict =
  void | undefined | { readonly type: 'abstain' } | { readonly type: 'deny'; readonly reason: string }

/** A monotonic guard: it may deny or abstain, never allow. */
export type ToolGuard = (call: ToolCallInfo) => GuardVerdict | Promise<GuardVerdict>

/**
 * What an `allowed-for-session` answer covers from now on, in the scope that asked and the scopes
 * below it, for the registration it was given for:
 * - `'arguments'` (the default): this tool with these exact arguments (object key order aside);
 * - `'tool'`: every call of this tool;
 * - `{ matches(call) }`: calls of this tool for which the rule returns exactly `true` (it sees the
 *   same frozen `ToolCallInfo` as policy; a rule that throws covers nothing).
 */
export type ApprovalGrantScope = 'arguments' | 'tool' | { readonly matches: (call: ToolCallInfo) => boolean }

export type ApprovalDecision =
  | { readonly type: 'allowed-once' }
  | { readonly type: 'allowed-for-session'; readonly scope?: ApprovalGrantScope }
  | { readonly type: 'rejected'; readonly feedback?: string }
  | { readonly type: 'cancelled' }
  | { readonly type: 'unavailable'; readonly reason?: string }
  /**
   * Nobody here can answer now; a person answers later, possibly in another process. A call whose
   * driver records approvals durably (`approval: { kind: 'suspendable' }`) is suspended: the agent
   * loop records an `approval/request` and pauses the turn. Any other call is `DENIED`
   * (`ApprovalPending`).
   */
  | { readonly type: 'pending' }

export interface ApprovalRequest {
  readonly toolName: string
  readonly callId: CallId
  readonly reason: string | undefined
  /** The validated arguments the body would receive (T36), as in `ToolCallInfo.args`. */
  readonly args: ToolArguments
  readonly signal: AbortSignal
  readonly agent: ScopeInfo
}

/** `ctx.approval`: asks someone (a user, a policy server) whether an `ask` call may run. */
export interface ApprovalService {
  request(request: ApprovalRequest): Promise<ApprovalDecision>
}

export type ExecutionMode = 'parallel' | 'exclusive'

export interface CallConcurrency {
  readonly mode: ExecutionMode
  /** Resource keys; only meaningful for parallel calls. */
  readonly keys: readonly string[]
}

export type PresentationMode = 'native' | 'code' | 'both'

/** Who is calling: the model directly (a tool-call block) or a `run_code` program (a nested call). */
export type ToolCallOrigin = 'model' | 'program'

export interface ToolsChange {
  readonly scope: ScopeInfo
  readonly reason: 'register' | 'unregister' | 'restrict' | 'unrestrict' | 'present'
  readonly names: readonly string[]
}

export interface RegisterOptions {
  /** Who registers (a plugin name); named in duplicate-name errors. */
  readonly registrant?: string
}

export interface Restriction {
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
}

export interface BatchOptions {
  readonly signal?: AbortSignal
  /** Pool size for parallel calls (default: `installTools`' `maxParallelToolCalls`, else 10). */
  readonly maxParallel?: number
}

/** Options of `installTools(ctx, options)`; every limit is validated at install time. */
export interface InstallToolsOptions {
  /** Largest raw argument string, in UTF-8 bytes (default 1 MiB). */
  readonly maxArgumentBytes?: number
  /** Deepest argument nesting (default 64). */
  readonly maxArgumentDepth?: number
  /** The deployment default presentation mode (default `native`). */
  readonly defaultPresentation?: PresentationMode
  /**
   * Timeout for tools that declare none (default 300 000 ms, five minutes; `0`, `Infinity` or
   * `false`: none). A tool's own `timeoutMs` wins; `timeoutMs: 0` or `Infinity` there opts it out.
   */
  readonly defaultTimeoutMs?: number | false
  /**
   * Shortest time between two `tools/progress` events of one call (default 100 ms): a chatty body
   * cannot flood listeners. 0 lets every report through.
   */
  readonly progressIntervalMs?: number
  /** Register the shipped timeout wrapper (default true). */
  readonly enforceTimeouts?: boolean
  /**
   * Time a call may spend in plugin code around its body, in total: pre-execute listeners, guards,
   * wrappers (outside `next`) and post-execute listeners (default 60 000 ms). Past it the call
   * fails with `PIPELINE_FAILED` (`PolicyTimeout`). The body (bounded by `timeoutMs`) and a
   * person answering an approval do not count.
   */
  readonly policyTimeoutMs?: number
  /**
   * After the caller's abort, how long started work may still finish and be committed as it is
   * (default 2 000 ms; 0 answers `ABORTED` at the next turn of the event loop).
   */
  readonly abortGraceMs?: number
  /**
   * How long a body that outlived its call's result (timeout, abort past the grace) is waited for
   * before it is reported `abandoned` (default 60 000 ms).
   */
  readonly lateBodyCapMs?: number
  /**
   * Largest result, in UTF-8 bytes of JSON text (default 4 MiB): a body's value (refused before it
   * is copied, at a cost bounded by the limit) and any result's content (text, image and audio data).
   * Past it the result is `INVALID_TOOL_OUTPUT` with a message saying so.
   */
  readonly maxResultBytes?: number
  /** Parallel pool size of `executeBatch` when the call passes no `maxParallel` (default 10). */
  readonly maxParallelToolCalls?: number
}

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    approval?: ApprovalService
  }
  interface Events {
    'tools/pre-execute': WaterfallEvent<[call: ToolCallInfo], PreExecuteDecision>
    'tools/execute': WaterfallEvent<[call: ExecuteCall], ToolExecutionResult>
    'tools/post-execute': WaterfallEvent<[call: PostExecuteCall], PostExecuteDecision>
    'tools/result': EmitEvent<[result: ToolExecutionResult, call: ToolCallInfo]>
    /** A body settled (or was abandoned) after its call was answered: T38, timeouts. */
    'tools/late-outcome': EmitEvent<[late: LateToolOutcome, call: ToolCallInfo]>
    'tools/change': EmitEvent<[change: ToolsChange]>
    /** A body reported how far it got (`exec.reportProgress`); never a result, never for the model. */
    'tools/progress': EmitEvent<[progress: ToolProgress]>
    /** One attempt of a body run by `withRetry` ended (each attempt, retried or not). */
    'tools/attempt': EmitEvent<[attempt: ToolAttempt]>
  }
}

/** What `withRetry` reports after each attempt of a body (`tools/attempt`). */
export interface ToolAttempt {
  readonly callId: CallId
  readonly toolName: string
  /** 1 for the first run of the body. */
  readonly attempt: number
  readonly outcome: 'ok' | 'error'
  /** Wall time of this attempt, in milliseconds. */
  readonly durationMs: number
  /** For `error`: the thrown value, described. */
  readonly error?: string
  /** For `error`: whether the error was marked retryable. */
  readonly retryable?: boolean
  /** For `error`: the wait before the next attempt, when there is one (else the error is final). */
  readonly retryInMs?: number
}

/**
 * Observation points of a batch, in the order they can happen for one call. `onStart` and
 * `onCommit` are where a loop records `tool/call` and `tool/result`: both run in model order, and
 * when either returns a promise the batch waits for it before the next start or commit (so an
 * asynchronous store keeps its order). A loop that records asynchronously and need not hold the
 * next start back returns nothing from `onStart` and gates the body with `onDispatch` instead. A
 * hook that throws or rejects fails the batch, except `onLateOutcome`, whose failures are logged.
 */
export interface ToolBatchHooks {
  /** The call was added (for `runToolBatch`: every call, at once, when the batch begins). */
  readonly onQueued?: (index: number, input: ToolExecutionInput) => void
  /**
   * The call takes its slot (parallel) or turn (exclusive), right before its policy stage. `mode` is
   * undefined for a call that never started (an abort skipped it, or the batch failed first).
   */
  readonly onStart?: (
    index: number,
    input: ToolExecutionInput,
    mode: ExecutionMode | undefined,
  ) => void | PromiseLike<void>
  /**
   * The call's policy let it run: its `tools/execute` wrappers and body start once what this
   * returns has settled (at once when it returns nothing). Meanwhile later calls may start and run
   * their policy. A throw or rejection fails the batch, and the body never runs. A loop that records
   * `tool/call` asynchronously returns here the promise of that record being durable (T25), so the
   * starts need not wait one append each.
   */
  readonly onDispatch?: (index: number, input: ToolExecutionInput) => void | PromiseLike<void>
  /**
   * Durable approvals: the call's approval is pending (its input was `approval: suspendable` and the
   * approver answered `pending`), every call before it has committed, and nothing after it will
   * start. `reason` is the policy's `ask` reason. The batch then ends `suspended`; a hook that throws
   * fails it instead (recovery answers every call).
   */
  readonly onSuspend?: (
    index: number,
    input: ToolExecutionInput,
    reason: string | undefined,
  ) => void | PromiseLike<void>
  /** A candidate result exists (before post-execute and commit). */
  readonly onSettled?: (index: number, input: ToolExecutionInput) => void
  /**
   * The call's final, frozen result, in model order. After a failed batch the same result may be
   * offered again for a call whose `onCommit` threw: treat it as a retry, not a second result.
   */
  readonly onCommit?: (
    index: number,
    input: ToolExecutionInput,
    result: ToolExecutionResult,
  ) => void | PromiseLike<void>
  /**
   * The body of a call whose result does not carry what it did has settled now: what it ended with.
   * Either the result was produced while the body still ran (a `TIMEOUT`, or `ABORTED` after the
   * abort grace; possibly after the batch ended: the call kept its claim, keys, pool slot or
   * barrier, until this moment), or the batch failed and answered the call (`SCHEDULER_FAILED`)
   * while its body ran, or after it returned a result that never became final: then it comes before
   * the batch's outcome settles, which waits for what this returns. Called at most once per call.
   */
  readonly onLateOutcome?: (
    index: number,
    input: ToolExecutionInput,
    late: LateToolOutcome,
  ) => void | PromiseLike<void>
}

export type { ToolErrorCode }
