import type { Logger } from '@deepseek-ai/dsh-context'
import type { BatchOptions, ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import {
  checkMaxParallel,
  checkOptionsObject,
  checkSignal,
  copyCalls,
} from '../contract/check-batch-input.ts'
import { openToolBatch } from './create-tool-batch.ts'
import { resolveToolRuntimeScheduler } from '../contract/scheduler-key.ts'

/**
 * `ctx.tools.executeBatch`: `runToolBatch` for plugins, which never rejects for a batch failure.
 * Recovery belongs to the batch (every call gets exactly one result, seen once by `tools/result`
 * observers); this only logs the failure and returns those results. Misuse still throws.
 */
export async function executeBatch(options: {
  readonly tools: unknown
  /** The installed runtime's logger: a failed batch is logged there. */
  readonly logger: Logger
  /** The installed runtime's `maxParallelToolCalls`: the pool size when the call names none. */
  readonly defaultMaxParallel: number
  readonly inputs: readonly ToolExecutionInput[]
  readonly options: BatchOptions
}): Promise<ToolExecutionResult[]> {
  const where = 'tools.executeBatch(inputs, options)'
  checkOptionsObject(where, 'options', options.options)
  const { signal, maxParallel } = options.options
  const calls = copyCalls(where, 'inputs', options.inputs)
  const batch = openToolBatch(
    {
      scheduler: resolveToolRuntimeScheduler(options.tools),
      logger: options.logger,
      signal: checkSignal(where, 'options.signal', signal),
      maxParallel: checkMaxParallel(where, 'options.maxParallel', maxParallel ?? options.defaultMaxParallel),
      hooks: {},
      eager: undefined,
    },
    calls,
  )
  const outcome = await batch.outcome
  if (outcome.kind === 'failed') {
    options.logger.error(`${where}: the batch failed; calls without a result got SCHEDULER_FAILED`, {
      error: outcome.error,
    })
  }
  return outcome.results
}
