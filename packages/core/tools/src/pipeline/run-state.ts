import type { Context } from '@deepseek-ai/dsh-context'
import type { CallId } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { RegistryState, ScopeToolsState } from '../registry/scope-state.ts'
import type { DispatchSink, ToolRunContext } from '../contract/scheduler-types.ts'
import type { ToolBatchHooks } from '../contract/batch-types.ts'
import type {
  FinalizeContext,
  ToolCallEffects,
  ToolCallInfo,
  ToolExecutionResult,
} from '../contract/types.ts'
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
 * The scheduler's private view of a run; callers only see the `ToolRunContext` part. A class
 * because a run has identity and a lifetime: the private `#owner` brand cannot be forged or copied,
 * so only the runtime that prepared a run will advance it, and creating one is a plain constructor
 * call on the hot path (no per-call getter or closure).
 */
export class RunState implements ToolRunContext, CancellableRun {
  /** Replaced (with `args`) when policy rewrites the arguments (T36, rewrite-arguments.ts). */
  call: ToolCallInfo
  readonly state: ScopeToolsState
  readonly tool: RegisteredTool | undefined
  args: unknown
  /** The JSON text of the arguments policy rewrote the call to; the result carries it. */
  rewrittenArguments: string | undefined = undefined
  /** Captured when the call started (docs/spec.md §5 step 10). */
  readonly finalizeContent:
    ((exec: FinalizeContext, result: ToolExecutionResult) => readonly unknown[]) | undefined
  /** What the body deferred (`exec.deferContext`), created on first use. */
  deferred: string[] | undefined = undefined
  /** UTF-8 bytes the body deferred, kept or not (past `maxResultBytes` the call fails, T14). */
  deferredBytes = 0
  concludes = false
  /** When the last `tools/progress` of this call was emitted (performance.now()), for the rate limit. */
  progressAt: number | undefined = undefined
  /** When the body last reported progress, emitted or not (performance.now()): an idle timeout's clock. */
  reportedAt: number | undefined = undefined
  /** The input's `nestedCallHooks`, handed to the body (a transport records its nested calls through them). */
  nestedCallHooks: ToolBatchHooks | undefined = undefined
  /** The input's `effects` (idempotency scope, body-start hook, T49 T50). */
  effects: ToolCallEffects | undefined = undefined
  stage: RunStage = 'dispatch'
  /** The result handed out with the run at `post-result` / `final-result`: the only one it may commit. */
  handed: ToolExecutionResult | undefined = undefined
  /**
   * A result the pipeline built for this call from strings and values it snapshotted itself: plain
   * lossless JSON by construction, so materializing it skips the defensive snapshot (a field rather
   * than a weak set: one entry per call in a weak table costs more than the rest of a trivial call).
   */
  trusted: ToolExecutionResult | undefined = undefined
  /** What the innermost `next()` of the `tools/execute` wrappers answered, frozen (dispatch.ts). */
  inner: ToolExecutionResult | undefined = undefined

  // --- cancellation (call-signal.ts): one controller per call, created on first use
  controller: AbortController | undefined = undefined
  cause: AbortCause | undefined = undefined
  callerReason: unknown = undefined
  /** The caller's signal being followed (until the call is answered). */
  watch: CallerWatch | undefined = undefined
  watchPrev: CancellableRun | undefined = undefined
  watchNext: CancellableRun | undefined = undefined
  /** Stages waiting on the call's abort (internal: no EventTarget, no controller needed). */
  waiters: (() => void)[] | undefined = undefined
  /**
   * The stage racing the call's abort right now (signals.ts), in a field of its own: stages run
   * one after another, so a second one at a time is rare and goes to `races` (a set per call cost
   * more than the rest of a parallel call's race).
   */
  race: AbortableRace | undefined = undefined
  /** Further stages racing the call's abort at the same time as `race`. */
  races: Set<AbortableRace> | undefined = undefined
  /** Set when the body ran past `timeoutMs` (the pipeline's own timeout): its signal aborts with a TimeoutError. */
  timedOutAfter: number | undefined = undefined
  /** The abort grace window (T38), shared by every stage of the call. */
  grace: Promise<void> | undefined = undefined
  graceTimer: ReturnType<typeof setTimeout> | undefined = undefined

  // --- the policy budget (call-signal.ts)
  budgetDeadline: number | undefined = undefined
  budgetPausedAt: number | undefined = undefined

  // --- where a dispatch answers when its driver gave a sink (`dispatchTo`), and the call's index there
  sink: DispatchSink | undefined = undefined
  sinkIndex = 0

  // --- the body: started (a promise) and seen settling by the pipeline
  bodyPending: Promise<unknown> | undefined = undefined
  bodyDone = false

  readonly #owner: RegistryState

  constructor(state: ScopeToolsState, call: ToolCallInfo, tool: RegisteredTool | undefined, args: unknown) {
    this.call = call
    this.state = state
    this.tool = tool
    this.args = args
    this.finalizeContent = tool?.definition.finalizeContent
    this.#owner = state.registry
  }

  // Read from the call and the scope rather than copied: three fields fewer in the largest object a
  // call makes (a rewrite replaces `call` with the same id and name).
  get callId(): CallId {
    return this.call.callId
  }

  get toolName(): string {
    return this.call.toolName
  }

  get scope(): Context {
    return this.state.ctx
  }

  /** The call's own signal (created on first read). */
  get signal(): AbortSignal {
    return runSignal(this)
  }

  /** True for a run that `registry` prepared (and nothing else, whatever its shape). */
  static ownedBy(value: unknown, registry: RegistryState): value is RunState {
    return typeof value === 'object' && value !== null && #owner in value && value.#owner === registry
  }
}

/** A run for a call; `caller` (the input's signal) is followed until the call is answered. */
export function createRun(options: {
  readonly state: ScopeToolsState
  readonly call: ToolCallInfo
  readonly caller: AbortSignal | undefined
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
}): RunState {
  const run = new RunState(options.state, options.call, options.tool, options.args)
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
