import type { Context } from '@deepseek-ai/dsh-context'
import type { CallId } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { RegistryState, ScopeToolsState } from '../registry/scope-state.ts'
import type { DispatchSink, ToolRunContext } from '../contract/scheduler-types.ts'
import type { ToolBatchHooks } from '../contract/batch-types.ts'
import type {
  AnyToolDefinition,
  FinalizeContext,
  ToolArguments,
  ToolCallEffects,
  ToolCallInfo,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
import { CALL_DEFINITION } from '../contract/is-call-to.ts'
import {
  linkCaller,
  runSignal,
  type AbortableRace,
  type AbortCause,
  type CallerWatch,
  type CancellableRun,
} from './call-signal.ts'

/**
 * Where a run is (T39). `dispatch`, `post-result` and `final-result` are the stages a run is
 * handed out at; `dispatching` and `finalizing` mark a stage in progress; `finished` is terminal,
 * and so is `suspended` (its approval is pending: the call is run again, as a new run, with the answer).
 */
export type RunStage =
  'dispatch' | 'dispatching' | 'post-result' | 'finalizing' | 'final-result' | 'finished' | 'suspended'

/**
 * The fields of a run that only some calls need (a rewrite, deferred context, progress, a timeout, a
 * signal someone read, an abort, the policy budget), in a record made on the first write of one of
 * them: a plain call (no listener, no signal read, no abort) never makes it, and its run is that
 * much smaller (the run is the largest object a call makes). `RunState` reads and writes them
 * through accessors of the same names, so the stages that use them are written as before.
 */
class RunExtras {
  rewrittenArguments: string | undefined = undefined
  deferred: string[] | undefined = undefined
  deferredBytes = 0
  concludes = false
  progressAt: number | undefined = undefined
  reportedAt: number | undefined = undefined
  inner: ToolExecutionResult | undefined = undefined
  controller: AbortController | undefined = undefined
  callerReason: unknown = undefined
  waiters: (() => void)[] | undefined = undefined
  races: Set<AbortableRace> | undefined = undefined
  timedOutAfter: number | undefined = undefined
  grace: Promise<void> | undefined = undefined
  graceTimer: ReturnType<typeof setTimeout> | undefined = undefined
  budgetDeadline: number | undefined = undefined
  budgetPausedAt: number | undefined = undefined
}

/**
 * The scheduler's private view of a run; callers only see the `ToolRunContext` part. A class
 * because a run has identity and a lifetime: the private `#owner` brand cannot be forged or copied,
 * so only the runtime that prepared a run will advance it, and creating one is a plain constructor
 * call on the hot path (no per-call getter or closure).
 */
export class RunState implements ToolRunContext, CancellableRun {
  /**
   * The checked input the call was prepared from (immutable: `CheckedInput`): its id, name, turn,
   * step, hooks and effects are read from it rather than copied into the run.
   */
  readonly input: ToolExecutionInput
  readonly state: ScopeToolsState
  readonly tool: RegisteredTool | undefined
  args: unknown
  /** Captured when the call started (docs/spec.md §5 step 10). */
  readonly finalizeContent:
    ((exec: FinalizeContext, result: ToolExecutionResult) => readonly unknown[]) | undefined
  stage: RunStage = 'dispatch'
  /** The result handed out with the run at `post-result` / `final-result`: the only one it may commit. */
  handed: ToolExecutionResult | undefined = undefined
  /**
   * A result the pipeline built for this call from strings and values it snapshotted itself: plain
   * lossless JSON by construction, so materializing it skips the defensive snapshot (a field rather
   * than a weak set: one entry per call in a weak table costs more than the rest of a trivial call).
   */
  trusted: ToolExecutionResult | undefined = undefined

  // --- cancellation (call-signal.ts) read on every call
  cause: AbortCause | undefined = undefined
  /** The caller's signal being followed (until the call is answered). */
  watch: CallerWatch | undefined = undefined
  watchPrev: CancellableRun | undefined = undefined
  watchNext: CancellableRun | undefined = undefined
  /**
   * The stage racing the call's abort right now (signals.ts), in a field of its own: stages run
   * one after another, so a second one at a time is rare and goes to `races` (a set per call cost
   * more than the rest of a parallel call's race).
   */
  race: AbortableRace | undefined = undefined

  // --- where a dispatch answers when its driver gave a sink (`dispatchTo`), and the call's index there
  sink: DispatchSink | undefined = undefined
  sinkIndex = 0

  // --- the body: started (a promise) and seen settling by the pipeline
  bodyPending: Promise<unknown> | undefined = undefined
  bodyDone = false

  /** The fields only some calls need (see `RunExtras`), made on the first write of one. */
  #extras: RunExtras | undefined = undefined
  /**
   * What policy, observers and the late outcome see of the call. Made on first read from the input
   * and the arguments the tool validated (its definition marks them, what `isCallTo` checks): a call
   * no listener looks at never builds it. Replaced (with `args`) when policy rewrites the arguments
   * (T36, rewrite-arguments.ts). A call answered before it started has it from the start.
   */
  #call: ToolCallInfo | undefined
  readonly #owner: RegistryState

  /**
   * `call` when the caller built it already (a call answered before it started); otherwise it is
   * built on first read from the input, `args` and the tool's definition.
   */
  constructor(
    state: ScopeToolsState,
    input: ToolExecutionInput,
    tool: RegisteredTool | undefined,
    args: unknown,
    call: ToolCallInfo | undefined,
  ) {
    this.input = input
    this.state = state
    this.tool = tool
    this.args = args
    this.finalizeContent = tool?.definition.finalizeContent
    this.#call = call
    this.#owner = state.registry
  }

  get call(): ToolCallInfo {
    const args = this.args as ToolArguments
    return (this.#call ??= callInfo(this.state, this.input, args, this.tool?.definition))
  }

  set call(call: ToolCallInfo) {
    this.#call = call
  }

  get callId(): CallId {
    return this.input.callId
  }

  get toolName(): string {
    return this.input.name
  }

  get scope(): Context {
    return this.state.ctx
  }

  /** The input's `nestedCallHooks`, handed to the body (a transport records its nested calls through them). */
  get nestedCallHooks(): ToolBatchHooks | undefined {
    return this.input.nestedCallHooks
  }

  /** The input's `effects` (idempotency scope, body-start hook, T49 T50). */
  get effects(): ToolCallEffects | undefined {
    return this.input.effects
  }

  /** The call's own signal (created on first read). */
  get signal(): AbortSignal {
    return runSignal(this)
  }

  /** Whether any field of `RunExtras` was ever written (a plain call: never). */
  get hasExtras(): boolean {
    return this.#extras !== undefined
  }

  #more(): RunExtras {
    return (this.#extras ??= new RunExtras())
  }

  /** The JSON text of the arguments policy rewrote the call to; the result carries it. */
  get rewrittenArguments(): string | undefined {
    return this.#extras?.rewrittenArguments
  }
  set rewrittenArguments(value: string | undefined) {
    this.#more().rewrittenArguments = value
  }

  /** What the body deferred (`exec.deferContext`), created on first use. */
  get deferred(): string[] | undefined {
    return this.#extras?.deferred
  }
  set deferred(value: string[] | undefined) {
    this.#more().deferred = value
  }

  /** UTF-8 bytes the body deferred, kept or not (past `maxResultBytes` the call fails, T14). */
  get deferredBytes(): number {
    return this.#extras?.deferredBytes ?? 0
  }
  set deferredBytes(value: number) {
    this.#more().deferredBytes = value
  }

  get concludes(): boolean {
    return this.#extras?.concludes ?? false
  }
  set concludes(value: boolean) {
    this.#more().concludes = value
  }

  /** When the last `tools/progress` of this call was emitted (performance.now()), for the rate limit. */
  get progressAt(): number | undefined {
    return this.#extras?.progressAt
  }
  set progressAt(value: number | undefined) {
    this.#more().progressAt = value
  }

  /** When the body last reported progress, emitted or not (performance.now()): an idle timeout's clock. */
  get reportedAt(): number | undefined {
    return this.#extras?.reportedAt
  }
  set reportedAt(value: number | undefined) {
    this.#more().reportedAt = value
  }

  /** What the innermost `next()` of the `tools/execute` wrappers answered, frozen (dispatch.ts). */
  get inner(): ToolExecutionResult | undefined {
    return this.#extras?.inner
  }
  set inner(value: ToolExecutionResult | undefined) {
    this.#more().inner = value
  }

  /** One controller per call, created on first use (call-signal.ts). */
  get controller(): AbortController | undefined {
    return this.#extras?.controller
  }
  set controller(value: AbortController | undefined) {
    this.#more().controller = value
  }

  get callerReason(): unknown {
    return this.#extras?.callerReason
  }
  set callerReason(value: unknown) {
    // an abort without a reason (the caller's signal always has one) leaves nothing to record
    if (value === undefined && this.#extras === undefined) return
    this.#more().callerReason = value
  }

  /** Stages waiting on the call's abort (internal: no EventTarget, no controller needed). */
  get waiters(): (() => void)[] | undefined {
    return this.#extras?.waiters
  }
  set waiters(value: (() => void)[] | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().waiters = value
  }

  /** Further stages racing the call's abort at the same time as `race`. */
  get races(): Set<AbortableRace> | undefined {
    return this.#extras?.races
  }
  set races(value: Set<AbortableRace> | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().races = value
  }

  /** Set when the body ran past `timeoutMs` (the pipeline's own timeout): its signal aborts with a TimeoutError. */
  get timedOutAfter(): number | undefined {
    return this.#extras?.timedOutAfter
  }
  set timedOutAfter(value: number | undefined) {
    this.#more().timedOutAfter = value
  }

  /** The abort grace window (T38), shared by every stage of the call. */
  get grace(): Promise<void> | undefined {
    return this.#extras?.grace
  }
  set grace(value: Promise<void> | undefined) {
    this.#more().grace = value
  }

  get graceTimer(): ReturnType<typeof setTimeout> | undefined {
    return this.#extras?.graceTimer
  }
  set graceTimer(value: ReturnType<typeof setTimeout> | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().graceTimer = value
  }

  // --- the policy budget (call-signal.ts)
  get budgetDeadline(): number | undefined {
    return this.#extras?.budgetDeadline
  }
  set budgetDeadline(value: number | undefined) {
    this.#more().budgetDeadline = value
  }

  get budgetPausedAt(): number | undefined {
    return this.#extras?.budgetPausedAt
  }
  set budgetPausedAt(value: number | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().budgetPausedAt = value
  }

  /** True for a run that `registry` prepared (and nothing else, whatever its shape). */
  static ownedBy(value: unknown, registry: RegistryState): value is RunState {
    return typeof value === 'object' && value !== null && #owner in value && value.#owner === registry
  }
}

/**
 * What policy and observers see of a call: its id, name, arguments, scope, turn and step (and its
 * parent's id, for a program's call), frozen. `definition` marks arguments that definition
 * validated (what `isCallTo` checks).
 */
export function callInfo(
  state: ScopeToolsState,
  input: ToolExecutionInput,
  args: ToolArguments,
  definition: AnyToolDefinition | undefined,
): ToolCallInfo {
  const parent = input.parent
  return Object.freeze(
    parent === undefined
      ? {
          callId: input.callId,
          toolName: input.name,
          args,
          scope: state.ctx.scope,
          turn: input.turn,
          step: input.step,
          [CALL_DEFINITION]: definition,
        }
      : {
          callId: input.callId,
          toolName: input.name,
          args,
          scope: state.ctx.scope,
          turn: input.turn,
          step: input.step,
          parentCallId: parent.callId,
          [CALL_DEFINITION]: definition,
        },
  )
}

/**
 * A run for a call; `caller` (the input's signal) is followed until the call is answered. `call`:
 * the call info when it is built already (a call answered before it started), else built on first
 * read from the input and `args` (validated by `tool`).
 */
export function createRun(options: {
  readonly state: ScopeToolsState
  readonly input: ToolExecutionInput
  readonly call: ToolCallInfo | undefined
  readonly caller: AbortSignal | undefined
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
}): RunState {
  const run = new RunState(options.state, options.input, options.tool, options.args, options.call)
  linkCaller(run, options.caller)
  return run
}

/** Hands the run out at a stage that carries a result. */
export function handOut<S extends 'post-result' | 'final-result'>(
  run: RunState,
  stage: S,
  result: ToolExecutionResult,
): { readonly stage: S; readonly run: RunState; readonly result: ToolExecutionResult } {
  run.stage = stage
  run.handed = result
  return { stage, run, result }
}
