import type { ToolExecutionResult } from '../contract/types.ts'
import { toolMessages } from '../contract/messages.ts'
import { failure, isTrusted, trust } from '../contract/results.ts'
import type { RunState } from './run-state.ts'

/**
 * T37: what the body added (`exec.deferContext`, `exec.concludeTurn`) becomes part of the result
 * the moment dispatch produces it, after any contexts a wrapper's result carried, so
 * `tools/post-execute` sees it and can drop or replace it. `concludesTurn` only rides a success.
 */
export function withBodyExtras(run: RunState, result: ToolExecutionResult): ToolExecutionResult {
  // a body that deferred nothing and concluded nothing wrote none of the run's extras
  if (!run.hasExtras) return result
  const deferred = run.deferred
  if (deferred === undefined && !run.concludes && run.deferredBytes === 0) return result
  const limit = run.state.registry.options.maxResultBytes
  // T14: a body that deferred more than a result may carry fails (a failure of its own stays that
  // failure); none of what it deferred goes on
  if (run.deferredBytes > limit)
    return result.isError
      ? result
      : failure(
          'INVALID_TOOL_OUTPUT',
          toolMessages.contextsTooLarge(run.toolName, run.deferredBytes, limit, true),
        )
  const contexts =
    deferred === undefined ? result.additionalContexts : [...(result.additionalContexts ?? []), ...deferred]
  const extras = contexts === undefined ? {} : { additionalContexts: contexts }
  const next: ToolExecutionResult = result.isError
    ? { ...result, ...extras }
    : { ...result, ...extras, ...(run.concludes ? { concludesTurn: true } : {}) }
  // deferred contexts are strings (checked by deferContext), so trust carries over
  if (result === run.trusted) run.trusted = next
  else if (isTrusted(result)) trust(next)
  return next
}
