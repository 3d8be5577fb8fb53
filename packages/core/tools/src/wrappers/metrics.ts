import type { WaterfallListener } from '@deepseek-ai/dsh-context'
import type { ExecuteCall, ToolExecutionResult } from '../contract/types.ts'

export interface ToolMetric {
  readonly toolName: string
  readonly callId: string
  /** Wall time of the wrapped part (inner wrappers + body), in milliseconds. */
  readonly durationMs: number
  /** `ok`, or the failure's `error.info.code`. */
  readonly outcome: string
}

/**
 * A `tools/execute` wrapper that reports one metric per dispatched call. Register it with a
 * priority to choose what it measures (outermost = everything inside, including timeouts).
 * @example ctx.on('tools/execute', createMetricsWrapper((m) => histogram.record(m.durationMs)))
 */
export function createMetricsWrapper(
  record: (metric: ToolMetric) => void,
): WaterfallListener<[call: ExecuteCall], ToolExecutionResult> {
  return async (call, next) => {
    const started = performance.now()
    const result = await next()
    const outcome = result.isError ? (result.error.info?.code ?? 'ERROR') : 'ok'
    try {
      record({
        toolName: call.toolName,
        callId: call.callId,
        durationMs: performance.now() - started,
        outcome,
      })
    } catch {
      // a metrics sink must never change a call's outcome
    }
    return result
  }
}
