import type { ScopeToolsState } from '../registry/scope-state.ts'
import type {
  AnyToolDefinition,
  PostExecuteCall,
  ToolArguments,
  ToolCallInfo,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
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

const hasOwn = Object.prototype.hasOwnProperty

/**
 * `Object.freeze({ ...call, result })` as named literals: on Node 20 an object literal that opens
 * with a spread and adds a property goes to the runtime (hundreds of ns), once per call with a
 * `tools/post-execute` listener (issue 26). `call` is a `callInfo` (or a copy of one with rewritten
 * `args`), so these are all its own keys, in its order; the result follows them, as after a spread.
 */
export function postExecuteCall(call: ToolCallInfo, result: ToolExecutionResult): PostExecuteCall {
  const definition = (call as { readonly [CALL_DEFINITION]?: AnyToolDefinition })[CALL_DEFINITION]
  return Object.freeze(
    hasOwn.call(call, 'parentCallId')
      ? {
          callId: call.callId,
          toolName: call.toolName,
          args: call.args,
          scope: call.scope,
          turn: call.turn,
          step: call.step,
          parentCallId: call.parentCallId!,
          [CALL_DEFINITION]: definition,
          result,
        }
      : {
          callId: call.callId,
          toolName: call.toolName,
          args: call.args,
          scope: call.scope,
          turn: call.turn,
          step: call.step,
          [CALL_DEFINITION]: definition,
          result,
        },
  )
}
