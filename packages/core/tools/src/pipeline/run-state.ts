import type { Context } from '@deepseek-ai/dsh-context'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolRunContext } from '../scheduler/scheduler-types.ts'
import type { FinalizeContext, ToolCallInfo, ToolExecutionResult } from '../types.ts'
import { linkCaller, runSignal, type AbortCause } from './call-signal.ts'

/**
 * Where a run is (T39). `dispatch`, `post-result` and `final-result` are the stages a run is
 * handed out at; `dispatching` and `finalizing` mark a stage in progress; `finished` is terminal.
 */
export type RunStage = 'dispatch' | 'dispatching' | 'post-result' | 'finalizing' | 'final-result' | 'finished'

/** The scheduler's private view of a run; callers only see the `ToolRunContext` part. */
export interface RunState extends ToolRunContext {
  readonly state: ScopeToolsState
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
  /** Captured when the call started (SPEC §5 step 10). */
  readonly finalizeContent:
    ((exec: FinalizeContext, result: ToolExecutionResult) => readonly unknown[]) | undefined
  readonly deferred: string[]
  concludes: boolean
  stage: RunStage
  /** The result handed out with the run at `post-result` / `final-result`: the only one it may commit. */
  handed: ToolExecutionResult | undefined

  // --- cancellation (call-signal.ts): one controller per call, created on first use
  controller: AbortController | undefined
  cause: AbortCause | undefined
  callerReason: unknown
  /** Removes the call's one listener from the caller's signal. */
  unlink: (() => void) | undefined
  /** The abort grace window (T38), shared by every stage of the call. */
  grace: Promise<void> | undefined
  graceTimer: ReturnType<typeof setTimeout> | undefined

  // --- the policy budget (call-budget.ts)
  budgetDeadline: number | undefined
  budgetPausedAt: number | undefined
  budgetTimer: ReturnType<typeof setTimeout> | undefined

  // --- the body: started (a promise) and seen settling by the pipeline
  bodyPending: Promise<unknown> | undefined
  bodyDone: boolean
}

/** A run for a call; `caller` (the input's signal) gets one listener until the call is answered. */
export function createRun(options: {
  readonly state: ScopeToolsState
  readonly call: ToolCallInfo
  readonly caller: AbortSignal | undefined
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
}): RunState {
  const { state, call, caller, tool, args } = options
  const run: RunState = {
    callId: call.callId,
    toolName: call.toolName,
    call,
    scope: state.ctx as Context,
    get signal() {
      return runSignal(run)
    },
    state,
    tool,
    args,
    finalizeContent: tool?.definition.finalizeContent,
    deferred: [],
    concludes: false,
    stage: 'dispatch',
    handed: undefined,
    controller: undefined,
    cause: undefined,
    callerReason: undefined,
    unlink: undefined,
    grace: undefined,
    graceTimer: undefined,
    budgetDeadline: undefined,
    budgetPausedAt: undefined,
    budgetTimer: undefined,
    bodyPending: undefined,
    bodyDone: false,
  }
  state.registry.runs.add(run)
  linkCaller(run, caller)
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
