import type { Context } from '@deepseek-ai/dsh-context'
import type { CallId } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { RegistryState, ScopeToolsState } from '../registry/scope-state.ts'
import type { DispatchSink, ToolRunContext } from '../contract/scheduler-types.ts'
import type { ToolBatchHooks } from '../contract/batch-types.ts'
import type {
  FinalizeContext,
  ToolArguments,
  ToolCallEffects,
  ToolCallInfo,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
import { callInfo } from './call-info.ts'
import { RunWithExtras } from './run-extras.ts'
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
export class RunState extends RunWithExtras implements ToolRunContext, CancellableRun {
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
    super()
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

  /** True for a run that `registry` prepared (and nothing else, whatever its shape). */
  static ownedBy(value: unknown, registry: RegistryState): value is RunState {
    return typeof value === 'object' && value !== null && #owner in value && value.#owner === registry
  }
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
