import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from '@deepseek-ai/dsh-session'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import type { ScheduledToolPreparation } from '../scheduler/scheduler-types.ts'
import type {
  PreExecuteDecision,
  ToolArguments,
  ToolCallInfo,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../types.ts'
import { resolveApproval } from './approval.ts'
import { readPreExecuteDecision } from './decisions.ts'
import { runGuards } from './guards.ts'
import { callArguments } from './call-arguments.ts'
import { parseToolArguments } from './parse-arguments.ts'
import { describeThrown, failure, success, toBlocks } from './results.ts'
import { createRun, handOut, type RunState } from './run-state.ts'
import { toolMessages } from '../messages.ts'
import { settleOrAbort, signalOrNever } from './signals.ts'

const ALLOW: PreExecuteDecision = Object.freeze({ type: 'allow' })
const EMPTY_ARGS: JsonObject = Object.freeze({})
const MAX_LISTED_TOOLS = 50

/** T10: the same words whether the tool never existed or a restriction hides it. */
function unknownToolMessage(name: string, state: ScopeToolsState): string {
  const names = [...visibleTools(state).keys()]
  const listed =
    names.length > MAX_LISTED_TOOLS ? `${names.slice(0, MAX_LISTED_TOOLS).join(', ')}, …` : names.join(', ')
  return `Unknown tool "${name}". Available tools: ${names.length > 0 ? listed : 'none'}.`
}

/**
 * Call info for a call whose arguments were not validated against a tool (an unknown tool, a
 * synthetic result): observers still learn what the model sent, or `{}` if it was not JSON.
 */
export function callInfoOf(state: ScopeToolsState, input: ToolExecutionInput): ToolCallInfo {
  const { maxArgumentBytes, maxArgumentDepth } = state.registry.options
  const parsed = parseToolArguments(input.arguments, {
    maxBytes: maxArgumentBytes,
    maxDepth: maxArgumentDepth,
  })
  return callInfo(state, input, parsed.ok ? deepFreeze(parsed.value) : EMPTY_ARGS)
}

function callInfo(state: ScopeToolsState, input: ToolExecutionInput, args: ToolArguments): ToolCallInfo {
  return Object.freeze({
    callId: input.callId,
    toolName: input.name,
    args,
    scope: state.ctx.scope,
    turn: input.turn,
    step: input.step,
  })
}

function final(run: RunState, result: ToolExecutionResult): ScheduledToolPreparation {
  return handOut(run, 'final-result', result)
}

/**
 * SPEC §5 steps 2–5, in order: parse and validate arguments, `tools/pre-execute`, approval for
 * `ask`, then the monotonic guards. Every outcome is a stage decision (T18); nothing throws.
 */
export async function prepareCall(
  state: ScopeToolsState,
  key: object,
  input: ToolExecutionInput,
): Promise<ScheduledToolPreparation> {
  const signal = signalOrNever(input.signal)
  const tool: RegisteredTool | undefined = visibleTools(state).get(input.name)
  const args = tool === undefined ? undefined : callArguments(state.registry, key, input, tool)
  const call =
    args === undefined
      ? callInfoOf(state, input)
      : callInfo(
          state,
          input,
          args.kind === 'ok' ? args.args : args.kind === 'unparsable' ? EMPTY_ARGS : args.json,
        )
  const settle = (result: ToolExecutionResult): ScheduledToolPreparation =>
    final(createRun({ state, call, signal, tool, args: undefined }), result)

  if (signal.aborted) {
    return settle(failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)))
  }
  if (tool === undefined || args === undefined)
    return settle(failure('UNKNOWN_TOOL', unknownToolMessage(input.name, state)))
  switch (args.kind) {
    case 'ok':
      break
    case 'unparsable':
    case 'invalid':
      return settle(
        failure('INVALID_ARGUMENTS', `Invalid arguments for tool "${input.name}": ${args.message}`),
      )
    case 'validator-failed':
      return settle(
        failure('PIPELINE_FAILED', `Argument validation for tool "${input.name}" failed: ${args.message}`),
      )
    default: {
      const never: never = args
      return never
    }
  }
  const run = createRun({ state, call, signal, tool, args: args.args })

  let decision: PreExecuteDecision = ALLOW
  if (state.ctx.hasListeners('tools/pre-execute')) {
    try {
      const settled = await settleOrAbort(
        state.ctx.waterfall('tools/pre-execute', call, () => ALLOW),
        signal,
        () => {},
      )
      if (settled.kind === 'aborted') {
        return final(run, failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)))
      }
      if (settled.kind === 'error') throw settled.error
      const read = readPreExecuteDecision(settled.value)
      if (read === undefined) {
        return final(
          run,
          failure(
            'PIPELINE_FAILED',
            `A tools/pre-execute listener returned an invalid decision for "${input.name}".`,
          ),
        )
      }
      decision = read
    } catch (error) {
      return final(
        run,
        failure(
          'PIPELINE_FAILED',
          `A tools/pre-execute listener failed for "${input.name}": ${describeThrown(error)}`,
        ),
      )
    }
  }

  switch (decision.type) {
    case 'allow':
      break
    case 'deny':
      return final(
        run,
        failure('DENIED', `Tool "${input.name}" was denied: ${decision.reason}`, { name: 'PolicyDenied' }),
      )
    case 'respond':
      return handOut(run, 'post-result', success(toBlocks(decision.content), decision.value))
    case 'ask': {
      const denied = await resolveApproval(run, decision.reason, args.json)
      if (denied !== undefined) return final(run, denied)
      break
    }
    default: {
      const never: never = decision
      return never
    }
  }

  const guarded = await runGuards(run)
  if (guarded !== undefined) return final(run, guarded)
  if (signal.aborted) {
    return final(run, failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)))
  }
  return { stage: 'dispatch', run }
}
