import { mayCallTool, type ToolCallOrigin } from '../contract/may-call-tool.ts'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { presentationOf, visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolExecutionInput } from '../contract/types.ts'

/** A call with a parent token was made by a `run_code` program; any other is model-direct (T7). */
export function originOf(input: ToolExecutionInput): ToolCallOrigin {
  return input.parent === undefined ? 'model' : 'program'
}

/**
 * The tool a call reaches: the visible one of that name, if the scope's presentation mode lets this
 * caller call it (T7, the same `mayCallTool` the prompt is built from); otherwise none, so the call
 * fails, is scheduled and is labelled exactly like a call to an unknown tool. One map read and one
 * walk up the scope chain; no allocation.
 */
export function callableTool(state: ScopeToolsState, input: ToolExecutionInput): RegisteredTool | undefined {
  const tool = visibleTools(state).get(input.name)
  if (tool === undefined) return undefined
  return mayCallTool(presentationOf(state), input.name, originOf(input)) ? tool : undefined
}
