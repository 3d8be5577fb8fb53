import type { Context } from '@deepseek-ai/dsh-context'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolRunContext } from '../scheduler/scheduler-types.ts'
import type { FinalizeContext, ToolCallInfo, ToolExecutionResult } from '../types.ts'

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
}

export function createRun(options: {
  readonly state: ScopeToolsState
  readonly call: ToolCallInfo
  readonly signal: AbortSignal
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
}): RunState {
  const { state, call, signal, tool, args } = options
  const run: RunState = {
    callId: call.callId,
    toolName: call.toolName,
    call,
    scope: state.ctx as Context,
    signal,
    state,
    tool,
    args,
    finalizeContent: tool?.definition.finalizeContent,
    deferred: [],
    concludes: false,
    stage: 'dispatch',
    handed: undefined,
  }
  state.registry.runs.add(run)
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
