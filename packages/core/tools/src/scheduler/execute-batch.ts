import type { RegistryState } from '../registry/scope-state.ts'
import type { BatchOptions, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import { checkBatchCalls, checkMaxParallel, checkOptionsObject, checkSignal } from './check-batch-input.ts'
import { runBatch } from './run-tool-batch.ts'

/**
 * `ctx.tools.executeBatch`: `runToolBatch` for plugins, which never rejects for a batch failure.
 * Recovery belongs to the batch (every call gets exactly one result, seen once by `tools/result`
 * observers); this only logs the failure and returns those results. Misuse still throws.
 */
export async function executeBatch(options: {
  readonly tools: unknown
  /** The installed runtime: its `maxParallelToolCalls` is the pool size when the call names none. */
  readonly registry: RegistryState
  readonly inputs: readonly ToolExecutionInput[]
  readonly options: BatchOptions
}): Promise<ToolExecutionResult[]> {
  const where = 'tools.executeBatch(inputs, options)'
  checkOptionsObject(where, 'options', options.options)
  const { signal, maxParallel } = options.options
  checkBatchCalls(where, 'inputs', options.inputs)
  const outcome = await runBatch(
    {
      tools: options.tools,
      calls: options.inputs,
      maxParallel: checkMaxParallel(
        where,
        'options.maxParallel',
        maxParallel ?? options.registry.options.maxParallelToolCalls,
      ),
      ...(checkSignal(where, 'options.signal', signal) === undefined ? {} : { signal }),
    },
    where,
  )
  if (outcome.kind === 'failed') {
    options.registry.logger.error(`${where}: the batch failed; calls without a result got SCHEDULER_FAILED`, {
      error: outcome.error,
    })
  }
  return outcome.results
}
