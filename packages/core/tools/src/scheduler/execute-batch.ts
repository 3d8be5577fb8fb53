import type { Logger } from '@deepseek-ai/dsh-context'
import type { BatchOptions, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import { DEFAULT_MAX_PARALLEL_TOOL_CALLS, runBatch } from './run-tool-batch.ts'

/**
 * `ctx.tools.executeBatch`: `runToolBatch` for plugins, which never rejects for a batch failure.
 * Recovery belongs to the batch (every call gets exactly one result, seen once by `tools/result`
 * observers); this only logs the failure and returns those results. Misuse still throws.
 */
export async function executeBatch(options: {
  readonly tools: unknown
  readonly logger: Logger
  readonly inputs: readonly ToolExecutionInput[]
  readonly options: BatchOptions
}): Promise<ToolExecutionResult[]> {
  const where = 'tools.executeBatch(inputs, options)'
  const { signal, maxParallel } = options.options
  const outcome = await runBatch(
    {
      tools: options.tools,
      calls: options.inputs,
      maxParallel: maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
      ...(signal === undefined ? {} : { signal }),
    },
    where,
  )
  if (outcome.kind === 'failed') {
    options.logger.error(`${where}: the batch failed; calls without a result got SCHEDULER_FAILED`, {
      error: outcome.error,
    })
  }
  return outcome.results
}
