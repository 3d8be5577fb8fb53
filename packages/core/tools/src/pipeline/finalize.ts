import type { PostExecuteCall, PostExecuteDecision, ToolExecutionResult } from '../contract/types.ts'
import { readPostExecuteDecision } from './decisions.ts'
import { materializeResult } from './materialize.ts'
import { failure, toBlocks } from '../contract/results.ts'
import type { RunState } from './run-state.ts'
import { toolMessages } from '../contract/messages.ts'
import { pauseBudget, releaseRun, startBudget } from './call-signal.ts'
import { raceRun } from './signals.ts'
import { valueResult } from './value-result.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { postExecuteCall } from './call-info.ts'

const ACCEPT: PostExecuteDecision = Object.freeze({ type: 'accept' })

/**
 * docs/spec.md §5 step 8 then `finishCall`: `tools/post-execute` may accept (and replace) or block. The
 * listeners run on the call's policy budget; after the caller's abort they get what is left of the
 * abort grace (T38), so a drained result is still checked before it is committed.
 */
export function finalizeCall(
  run: RunState,
  result: ToolExecutionResult,
): ToolExecutionResult | Promise<ToolExecutionResult> {
  run.stage = 'finalizing'
  // no listener: nothing to wait for, the result is final now
  if (!run.state.ctx.hasListeners('tools/post-execute')) return finishCall(run, result)
  return postExecute(run, result)
}

async function postExecute(run: RunState, result: ToolExecutionResult): Promise<ToolExecutionResult> {
  let next = result
  const { ctx, registry } = run.state
  const candidate = materializeResult(
    result,
    run.toolName,
    registry.options.maxResultBytes,
    result === run.trusted,
  )
  const call: PostExecuteCall = postExecuteCall(run.call, candidate)
  startBudget(run)
  try {
    const settled = await raceRun(
      run,
      ctx.waterfall('tools/post-execute', call, () => ACCEPT),
      true,
    )
    if (settled.kind === 'error') throw settled.error
    if (settled.kind === 'aborted') {
      // fail closed rather than commit a result a policy never saw
      next =
        run.cause === 'deadline'
          ? failure(
              'PIPELINE_FAILED',
              toolMessages.overBudget(
                run.toolName,
                'a tools/post-execute listener',
                registry.options.policyTimeoutMs,
              ),
              { name: 'PolicyTimeout' },
            )
          : failure('ABORTED', toolMessages.abortedWhileChecked(run.toolName))
    } else {
      const decision = readPostExecuteDecision(settled.value)
      next =
        decision === undefined
          ? failure('PIPELINE_FAILED', toolMessages.postExecuteInvalid(run.toolName))
          : applyDecision(run, candidate, decision)
    }
  } catch (error) {
    next = failure('PIPELINE_FAILED', toolMessages.postExecuteFailed(run.toolName, error))
  }
  pauseBudget(run)
  return finishCall(run, next)
}

/**
 * T37: the result a listener saw already carries the wrapper's and the body's contexts, in that
 * order. `accept` keeps them (or `replaceContexts` replaces them) and appends its own; `block`
 * drops them (the policy withheld the result, context included) and keeps only its own. T14: a
 * value `accept` puts on a success is checked like the body's (output schema, size, lossless JSON)
 * and the content is rendered from it, unless the decision brought content too; a value that fails
 * the check fails the call (`INVALID_TOOL_OUTPUT`), and no context goes through.
 */
function applyDecision(
  run: RunState,
  result: ToolExecutionResult,
  decision: PostExecuteDecision,
): ToolExecutionResult {
  const own = decision.additionalContexts ?? []
  switch (decision.type) {
    case 'accept': {
      // A plain accept (no content, value or contexts of its own) keeps the result the listener
      // saw: materialized and frozen already, so finishCall does not copy it again (a listener
      // that only observes, as the otel plugin's does, made every call pay a second snapshot).
      if (
        decision.content === undefined &&
        decision.value === undefined &&
        decision.replaceContexts === undefined &&
        own.length === 0
      ) {
        return result
      }
      let content = decision.content === undefined ? result.content : toBlocks(decision.content)
      let value = decision.value
      if (value !== undefined && !result.isError) {
        const replaced = valueResult(
          run,
          value,
          'A tools/post-execute listener',
          decision.content === undefined ? undefined : content,
        )
        if (replaced.isError) return replaced
        content = replaced.content
        value = replaced.value
      }
      const kept = decision.replaceContexts ?? result.additionalContexts ?? []
      const merged = own.length === 0 ? kept : [...kept, ...own]
      const { additionalContexts: _dropped, ...rest } = result
      const contexts = merged.length === 0 ? {} : { additionalContexts: merged }
      if (rest.isError) return { ...rest, content, ...contexts }
      return { ...rest, content, ...contexts, ...(value === undefined ? {} : { value }) }
    }
    case 'block': {
      const blocked = failure('BLOCKED', toolMessages.blocked(run.toolName, decision.feedback))
      return own.length === 0 ? blocked : { ...blocked, additionalContexts: own }
    }
    default: {
      const never: never = decision
      return never
    }
  }
}

/**
 * docs/spec.md §5 steps 9–11 (no post-execute): `finalizeContent` runs exactly once, the result is materialized (lossless, frozen) and
 * `tools/result` observers are notified. Synchronous by contract.
 */
export function finishCall(run: RunState, result: ToolExecutionResult): ToolExecutionResult {
  run.stage = 'finished'
  releaseRun(run)
  let candidate = result
  if (run.finalizeContent !== undefined) {
    const draft = materializeResult(
      candidate,
      run.toolName,
      run.state.registry.options.maxResultBytes,
      candidate === run.trusted,
    )
    try {
      const content: unknown = run.finalizeContent.call(
        run.tool?.definition,
        { callId: run.callId, toolName: run.toolName, ctx: run.scope },
        draft,
      )
      if (isThenable(content)) {
        candidate = keepContexts(
          failure('PIPELINE_FAILED', toolMessages.finalizeContentAsync(run.toolName)),
          draft,
        )
      } else candidate = { ...draft, content: content as ToolExecutionResult['content'] }
    } catch (error) {
      candidate = keepContexts(
        failure('PIPELINE_FAILED', toolMessages.finalizeContentFailed(run.toolName, error)),
        draft,
      )
    }
  }
  const materialized = materializeResult(
    candidate,
    run.toolName,
    run.state.registry.options.maxResultBytes,
    candidate === run.trusted,
  )
  // T36: a call whose arguments policy rewrote says what it ran with (a string: still lossless)
  const rewritten = run.rewrittenArguments
  const final =
    rewritten === undefined ? materialized : Object.freeze({ ...materialized, rewrittenArguments: rewritten })
  const { ctx } = run.state
  if (ctx.hasListeners('tools/result')) ctx.emit('tools/result', final, run.call)
  return final
}

function keepContexts(result: ToolExecutionResult, from: ToolExecutionResult): ToolExecutionResult {
  return from.additionalContexts === undefined
    ? result
    : { ...result, additionalContexts: from.additionalContexts }
}
