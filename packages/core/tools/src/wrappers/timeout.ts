import type { Logger, WaterfallListener } from '@deepseek-ai/dsh-context'
import type { ExecuteCall, ToolExecutionResult } from '../types.ts'
import { failure } from '../pipeline/results.ts'

/**
 * T17: the shipped `tools/execute` wrapper that enforces `timeoutMs` (the tool's, else the
 * runtime default). On expiry it aborts the body's signal and settles the call with `TIMEOUT` at
 * once; a body that ignores its signal cannot hold the call open, and its late outcome is logged.
 */
export function createTimeoutWrapper(
  logger: Logger,
): WaterfallListener<[call: ExecuteCall], ToolExecutionResult> {
  return (call, next) => {
    const timeoutMs = call.timeoutMs
    if (timeoutMs === undefined) return next()
    const controller = new AbortController()
    const inner = next({ ...call, signal: AbortSignal.any([call.signal, controller.signal]) })
    return new Promise<ToolExecutionResult>((resolve, reject) => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        controller.abort(new Error(`timed out after ${timeoutMs} ms`))
        resolve(failure('TIMEOUT', `Tool "${call.toolName}" timed out after ${timeoutMs} ms.`))
      }, timeoutMs)
      inner.then(
        (result) => {
          if (timedOut) {
            logger.warn(
              `tool "${call.toolName}" (call ${call.callId}) finished after its ${timeoutMs} ms timeout; result discarded`,
            )
            return
          }
          clearTimeout(timer)
          resolve(result)
        },
        (error: unknown) => {
          if (timedOut) return
          clearTimeout(timer)
          reject(error)
        },
      )
    })
  }
}
