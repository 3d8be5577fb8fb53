import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { AnyToolDefinition, ToolArguments, ToolCallInfo, ToolExecutionInput } from '../contract/types.ts'
import { CALL_DEFINITION } from '../contract/is-call-to.ts'

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
  // Two literals rather than one with a field added when there is a parent: each keeps the one
  // shape it was made with, so the readers of a model's calls stay monomorphic.
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
