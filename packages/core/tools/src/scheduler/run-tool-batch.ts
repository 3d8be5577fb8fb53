import type { ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type { ToolBatchHooks, ToolBatchOutcome } from '../contract/batch-types.ts'
import {
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  checkMaxParallel,
  checkOptionsObject,
  checkSignal,
  copyCalls,
  readHooks,
} from '../contract/check-batch-input.ts'
import { openToolBatch } from './create-tool-batch.ts'
import { loggerOf } from './logger-of.ts'
import { resolveToolRuntimeScheduler } from '../contract/scheduler-key.ts'

export interface RunToolBatchOptions {
  /** A `ctx.tools` (any compatible copy of the package). */
  readonly tools: unknown
  readonly calls: readonly ToolExecutionInput[]
  readonly signal?: AbortSignal
  /** Parallel pool size, a positive integer (default 10). */
  readonly maxParallel?: number
  readonly hooks?: ToolBatchHooks
}

/**
 * Runs one step's calls with the loop's contract (T20–T26): exclusive calls are barriers; parallel
 * calls share a rolling pool of `maxParallel` slots and never overlap on a resource key; policy runs
 * in model order, dispatch overlaps, results commit in model order. On abort, started calls drain
 * and the rest get `ABORTED_BEFORE_DISPATCH`. Resolves with results in model order.
 *
 * If the batch itself fails (a hook throws, the runtime misbehaves), every call still gets exactly
 * one result through `onCommit`, in model order, before the error is rethrown (T13, T39): a call
 * whose result was already final gets that result again (so a hook that failed to record it can
 * retry), the others get `SCHEDULER_FAILED`; calls that had not started are announced with
 * `onStart(index, input, undefined)` first. Errors thrown by hooks during this recovery are ignored:
 * the original error is what the caller needs. Bodies that had started drain first, as on an
 * abort (T38): the promise settles once their dispatches returned, and what each body did has gone
 * to `onLateOutcome`.
 *
 * Every call is checked before any starts. This is `createToolBatch` with all calls added at once.
 */
export async function runToolBatch(options: RunToolBatchOptions): Promise<ToolExecutionResult[]> {
  const outcome = await runBatch(options, 'runToolBatch(options)')
  if (outcome.kind === 'failed') throw outcome.error
  return outcome.results
}

/** `runToolBatch` without the rethrow: the outcome carries the results in both cases. */
export function runBatch(options: RunToolBatchOptions, where: string): Promise<ToolBatchOutcome> {
  checkOptionsObject(where, 'options', options)
  const { tools, calls, signal, maxParallel, hooks } = options
  const copies = copyCalls(where, 'options.calls', calls)
  const batch = openToolBatch(
    {
      scheduler: resolveToolRuntimeScheduler(tools),
      logger: loggerOf(tools),
      signal: checkSignal(where, 'options.signal', signal),
      maxParallel: checkMaxParallel(
        where,
        'options.maxParallel',
        maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
      ),
      hooks: readHooks(where, hooks),
      eager: undefined,
    },
    copies,
  )
  return batch.outcome
}
