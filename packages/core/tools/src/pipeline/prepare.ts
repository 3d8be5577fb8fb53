import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { callableToolNames } from '../contract/may-call-tool.ts'
import { presentationOf, visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import type { ScheduledToolPreparation } from '../contract/scheduler-types.ts'
import type {
  PreExecuteDecision,
  ToolCallApproval,
  ToolCallInfo,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
import { rejectedByAnswer, resolveApproval, SUSPEND } from './approval.ts'
import { pauseBudget, releaseRun, startBudget } from './call-signal.ts'
import { readPreExecuteDecision } from './decisions.ts'
import { guardsOnChain, runGuards } from './guards.ts'
import { callArguments, type CallArguments } from './call-arguments.ts'
import { rewriteArguments } from './rewrite-arguments.ts'
import { valueResult } from './value-result.ts'
import { argumentsKey } from './session-grants.ts'
import { ArgumentsRefused, parseToolArguments } from './parse-arguments.ts'
import { failure, success, toBlocks } from '../contract/results.ts'
import { callInfo } from './call-info.ts'
import { createRun, handOut, type RunState } from './run-state.ts'
import { toolMessages } from '../contract/messages.ts'
import { raceRun } from './signals.ts'
import { cutShort } from './cut-short.ts'
import { callableTool, originOf } from './callable-tool.ts'

const ALLOW: PreExecuteDecision = Object.freeze({ type: 'allow' })
/** Pre-execute passes that may each rewrite the arguments before a call fails for not settling. */
const MAX_REWRITES = 4
const EMPTY_ARGS: JsonObject = Object.freeze({})
const MAX_LISTED_TOOLS = 50

/**
 * T10, T7: the same words whether the tool never existed, a restriction hides it or the
 * presentation mode does not let this caller call it; the list names what this caller may call.
 */
function unknownToolMessage(name: string, state: ScopeToolsState, input: ToolExecutionInput): string {
  const names = callableToolNames(presentationOf(state), visibleTools(state).keys(), originOf(input))
  return toolMessages.unknownTool(name, names, MAX_LISTED_TOOLS)
}

/**
 * Call info for a call whose arguments were not validated against a tool (an unknown tool, a
 * synthetic result): observers still learn what the model sent, or `{}` if it was not JSON.
 */
export function callInfoOf(state: ScopeToolsState, input: ToolExecutionInput): ToolCallInfo {
  const parsed = parseToolArguments(input.arguments, state.registry.options)
  return callInfo(
    state,
    input,
    parsed instanceof ArgumentsRefused ? EMPTY_ARGS : deepFreeze(parsed),
    undefined,
  )
}

/**
 * What observers see of a call answered in `prepare`, before it started. (A call that goes on to
 * dispatch builds it only when something reads it: `RunState.call`.)
 */
function callOf(
  state: ScopeToolsState,
  input: ToolExecutionInput,
  tool: RegisteredTool | undefined,
  args: CallArguments | undefined,
): ToolCallInfo {
  if (args === undefined) return callInfoOf(state, input)
  if (args.kind === 'ok') return callInfo(state, input, args.args, tool!.definition)
  return callInfo(state, input, args.kind === 'unparsable' ? EMPTY_ARGS : args.json, undefined)
}

function final(run: RunState, result: ToolExecutionResult): ScheduledToolPreparation {
  return handOut(run, 'final-result', result)
}

/**
 * docs/spec.md §5 steps 2–5, in order: parse and validate arguments, `tools/pre-execute`, approval for
 * `ask`, then the monotonic guards. Every outcome is a stage decision (T18); nothing throws. The
 * listeners and guards run on the call's policy budget; a caller's abort ends this stage at once
 * (nothing has started yet).
 */
export function prepareCall(
  state: ScopeToolsState,
  key: object | undefined,
  input: ToolExecutionInput,
): ScheduledToolPreparation | Promise<ScheduledToolPreparation> {
  // T7: a tool this caller may not call under the scope's mode is treated as unknown from here on
  const tool: RegisteredTool | undefined = callableTool(state, input)
  const args = tool === undefined ? undefined : callArguments(state.registry, key, input, tool, false)
  if (input.signal?.aborted === true) {
    return settled(
      state,
      input,
      callOf(state, input, tool, args),
      tool,
      failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)),
    )
  }
  const { approval } = input
  // A person rejected this call (durable approvals): that is its answer, whatever policy says now,
  // also when the tool is gone or its arguments no longer validate (the feedback is the person's)
  const rejected = approval?.kind === 'answered' ? rejectedByAnswer(input.name, approval.answer) : undefined
  if (rejected !== undefined) return settled(state, input, callOf(state, input, tool, args), tool, rejected)
  if (tool === undefined || args === undefined)
    return settled(
      state,
      input,
      callOf(state, input, tool, args),
      tool,
      failure('UNKNOWN_TOOL', unknownToolMessage(input.name, state, input)),
    )
  switch (args.kind) {
    case 'ok':
      break
    case 'unparsable':
    case 'invalid':
      return settled(
        state,
        input,
        callOf(state, input, tool, args),
        tool,
        failure('INVALID_ARGUMENTS', toolMessages.invalidArguments(input.name, args.message)),
      )
    case 'validator-failed':
      return settled(
        state,
        input,
        callOf(state, input, tool, args),
        tool,
        failure('PIPELINE_FAILED', toolMessages.validationFailed(input.name, args.message)),
      )
    default: {
      const never: never = args
      return never
    }
  }
  const run = createRun({ state, input, call: undefined, caller: input.signal, tool, args: args.args })
  // T64: policy passed this call before its body began; collecting its outcome starts nothing new
  if (input.effects?.reattachOnly === true) return { stage: 'dispatch', run }
  // no listener and no guard: nothing to decide, nothing to wait for (and no promise either: the
  // caller awaits only what needs it)
  if (!state.ctx.hasListeners('tools/pre-execute') && guardsOnChain(state) === undefined)
    return { stage: 'dispatch', run }
  return policyStage(run, tool, args.json, approval)
}

/** A call answered before it started: its run is handed out at `final-result`. */
function settled(
  state: ScopeToolsState,
  input: ToolExecutionInput,
  call: ToolCallInfo,
  tool: RegisteredTool | undefined,
  result: ToolExecutionResult,
): ScheduledToolPreparation {
  return final(createRun({ state, input, call, caller: undefined, tool, args: undefined }), result)
}

async function policyStage(
  run: RunState,
  tool: RegisteredTool,
  json: JsonObject,
  approval: ToolExecutionInput['approval'],
): Promise<ScheduledToolPreparation> {
  const prepared = await policy(run, tool, json, approval)
  pauseBudget(run)
  return prepared
}

/** One pass of the `tools/pre-execute` waterfall: the decision read, or the call's result. */
async function preExecute(
  run: RunState,
): Promise<PreExecuteDecision | { readonly type: 'result'; readonly result: ToolExecutionResult }> {
  const name = run.toolName
  try {
    const settled = await raceRun(
      run,
      run.state.ctx.waterfall('tools/pre-execute', run.call, () => ALLOW),
      false,
    )
    if (settled.kind === 'aborted')
      return { type: 'result', result: cutShort(run, 'a tools/pre-execute listener') }
    if (settled.kind === 'error') throw settled.error
    const read = readPreExecuteDecision(settled.value)
    if (read.type === 'invalid')
      return {
        type: 'result',
        result: failure('PIPELINE_FAILED', toolMessages.preExecuteInvalid(name, read.problem)),
      }
    return read
  } catch (error) {
    return { type: 'result', result: failure('PIPELINE_FAILED', toolMessages.preExecuteFailed(name, error)) }
  }
}

async function policy(
  run: RunState,
  tool: RegisteredTool,
  original: JsonObject,
  approval: ToolCallApproval | undefined,
): Promise<ScheduledToolPreparation> {
  // the JSON the call's arguments come from: the model's, or a policy's rewrite (the grant key)
  let json = original
  const { ctx } = run.state
  const name = run.toolName
  let decision: PreExecuteDecision = ALLOW
  if (ctx.hasListeners('tools/pre-execute')) {
    startBudget(run)
    // T36: a rewrite (allow({ args })) runs the waterfall again on the rewritten call, until a pass
    // rewrites nothing more: every listener's last word is on the arguments the body gets
    for (let pass = 1; ; pass++) {
      const read = await preExecute(run)
      if (read.type === 'result') return final(run, read.result)
      if (read.type !== 'allow' || read.args === undefined) {
        decision = read
        break
      }
      const rewritten = rewriteArguments(run, tool, read.args)
      if (!rewritten.ok) return final(run, rewritten.result)
      if (argumentsKey(rewritten.json) === argumentsKey(json)) break
      if (pass === MAX_REWRITES)
        return final(run, failure('PIPELINE_FAILED', toolMessages.rewritesUnsettled(name, pass)))
      json = rewritten.json
      run.args = rewritten.args
      run.call = Object.freeze({ ...run.call, args: rewritten.args })
      run.rewrittenArguments = rewritten.text
    }
  }

  switch (decision.type) {
    case 'allow':
      break
    case 'deny':
      return final(
        run,
        failure('DENIED', toolMessages.denied(name, decision.reason), { name: 'PolicyDenied' }),
      )
    case 'respond': {
      const content = toBlocks(decision.content)
      if (decision.value === undefined) return handOut(run, 'post-result', success(content))
      // T14: the value a policy answers with is the tool's value: held to its output schema
      const answered = valueResult(run, decision.value, 'A tools/pre-execute listener', content)
      return answered.isError ? final(run, answered) : handOut(run, 'post-result', answered)
    }
    case 'ask': {
      // a person answering is not plugin code: the budget waits
      pauseBudget(run)
      const denied = await resolveApproval(run, tool, decision.reason, json, approval)
      if (denied === SUSPEND) {
        // No result in this process: the driver records the pending approval and runs the call
        // again with the answer. Nothing of the run stays attached (signal, budget sweeper).
        run.stage = 'suspended'
        releaseRun(run)
        return { stage: 'approval-pending', run, reason: decision.reason }
      }
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
  if (run.cause !== undefined) return final(run, cutShort(run, 'a guard'))
  return { stage: 'dispatch', run }
}
