import type { Context } from '@deepseek-ai/dsh-context'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolRunContext } from '../scheduler/scheduler-types.ts'
import type { FinalizeContext, ToolCallInfo, ToolExecutionResult } from '../types.ts'

export type RunPhase = 'prepared' | 'dispatched' | 'finished'

/** The scheduler's private view of a run; callers only see the `ToolRunContext` part. */
export interface RunState extends ToolRunContext {
  readonly state: ScopeToolsState
  readonly tool: RegisteredTool | undefined
  readonly args: unknown
  /** Captured when the call started (docs/spec.md §5 step 10). */
  readonly finalizeContent:
    ((exec: FinalizeContext, result: ToolExecutionResult) => readonly unknown[]) | undefined
  readonly deferred: string[]
  concludes: boolean
  phase: RunPhase
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
    phase: 'prepared',
  }
  state.registry.runs.add(run)
  return run
}
