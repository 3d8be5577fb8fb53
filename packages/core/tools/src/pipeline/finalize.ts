import type { PostExecuteCall, PostExecuteDecision, ToolExecutionResult } from '../types.ts'
import { readPostExecuteDecision } from './decisions.ts'
import { materializeResult } from './materialize.ts'
import { describeThrown, failure, isTrusted, toBlocks, trust } from './results.ts'
import type { RunState } from './run-state.ts'
import { toolMessages } from '../messages.ts'
import { pauseBudget, startBudget } from './call-budget.ts'
import { releaseRun } from './call-signal.ts'
import { raceRun } from './signals.ts'

const ACCEPT: PostExecuteDecision = Object.freeze({ type: 'accept' })

/**
 * SPEC §5 step 8 then `finishCall`: `tools/post-execute` may accept (and replace) or block. The
 * listeners run on the call's policy budget; after the caller's abort they get what is left of the
 * abort grace (T38), so a drained result is still checked before it is committed.
 */
export async function finalizeCall(run: RunState, result: ToolExecutionResult): Promise<ToolExecutionResult> {
  run.stage = 'finalizing'
  let next = result
  const { ctx, registry } = run.state
  if (ctx.hasListeners('tools/post-execute')) {
    const candidate = materializeResult(result, run.toolName)
    const call: PostExecuteCall = Object.freeze({ ...run.call, result: candidate })
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
            ? failure(
                'PIPELINE_FAILED',
                `A tools/post-execute listener returned an invalid decision for "${run.toolName}".`,
              )
            : applyDecision(candidate, decision)
      }
    } catch (error) {
      next = failure(
        'PIPELINE_FAILED',
        `A tools/post-execute listener failed for "${run.toolName}": ${describeThrown(error)}`,
      )
    }
    pauseBudget(run)
  }
  return finishCall(run, next)
}

function applyDecision(result: ToolExecutionResult, decision: PostExecuteDecision): ToolExecutionResult {
  const contexts = decision.additionalContexts
  const merged =
    contexts === undefined ? result.additionalContexts : [...(result.additionalContexts ?? []), ...contexts]
  switch (decision.type) {
    case 'accept': {
      const content = decision.content === undefined ? result.content : toBlocks(decision.content)
      const contexts = merged === undefined ? {} : { additionalContexts: merged }
      if (result.isError) return { ...result, content, ...contexts }
      return {
        ...result,
        content,
        ...contexts,
        ...(decision.value === undefined ? {} : { value: decision.value }),
      }
    }
    case 'block': {
      const blocked = failure('BLOCKED', decision.feedback)
      return merged === undefined ? blocked : { ...blocked, additionalContexts: merged }
    }
    default: {
      const never: never = decision
      return never
    }
  }
}

/**
 * SPEC §5 steps 9–11 (no post-execute): deferred context and `concludeTurn` ride the result,
 * `finalizeContent` runs exactly once, the result is materialized (lossless, frozen) and
 * `tools/result` observers are notified. Synchronous by contract.
 */
export function finishCall(run: RunState, result: ToolExecutionResult): ToolExecutionResult {
  run.stage = 'finished'
  releaseRun(run)
  let candidate = withRunExtras(run, result)
  if (run.finalizeContent !== undefined) {
    const draft = materializeResult(candidate, run.toolName)
    try {
      const content: unknown = run.finalizeContent.call(
        run.tool?.definition,
        { callId: run.callId, toolName: run.toolName, ctx: run.scope },
        draft,
      )
      if (typeof (content as { then?: unknown } | null)?.then === 'function') {
        candidate = keepContexts(
          failure(
            'PIPELINE_FAILED',
            `finalizeContent of "${run.toolName}" must be synchronous; it returned a promise.`,
          ),
          draft,
        )
      } else candidate = { ...draft, content: content as ToolExecutionResult['content'] }
    } catch (error) {
      candidate = keepContexts(
        failure('PIPELINE_FAILED', `finalizeContent of "${run.toolName}" failed: ${describeThrown(error)}`),
        draft,
      )
    }
  }
  const final = materializeResult(candidate, run.toolName)
  const { ctx } = run.state
  if (ctx.hasListeners('tools/result')) ctx.emit('tools/result', final, run.call)
  return final
}

function keepContexts(result: ToolExecutionResult, from: ToolExecutionResult): ToolExecutionResult {
  return from.additionalContexts === undefined
    ? result
    : { ...result, additionalContexts: from.additionalContexts }
}

function withRunExtras(run: RunState, result: ToolExecutionResult): ToolExecutionResult {
  if (run.deferred.length === 0 && !run.concludes) return result
  const contexts =
    run.deferred.length === 0
      ? result.additionalContexts
      : [...(result.additionalContexts ?? []), ...run.deferred]
  const extras = contexts === undefined ? {} : { additionalContexts: contexts }
  const next: ToolExecutionResult = result.isError
    ? { ...result, ...extras }
    : { ...result, ...extras, ...(run.concludes ? { concludesTurn: true } : {}) }
  // deferred contexts are strings (checked by deferContext), so trust carries over
  return isTrusted(result) ? trust(next) : next
}
