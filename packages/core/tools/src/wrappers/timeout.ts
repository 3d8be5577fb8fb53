import type { WaterfallListener } from '@deepseek-ai/dsh-context'
import { withTimeout } from '../pipeline/with-timeout.ts'
import type { ExecuteCall, ToolExecutionResult } from '../types.ts'

/**
 * T17: the shipped `tools/execute` wrapper that enforces `timeoutMs` (the tool's, else the
 * runtime default). On expiry it aborts the body's signal and settles the call with `TIMEOUT` at
 * once; a body that ignores its signal cannot hold the call open. The pipeline reports what such a
 * body does later, once (a warning and `tools/late-outcome`).
 *
 * `installTools` registers it innermost (priority -1000). While it is the only `tools/execute`
 * listener, the pipeline applies the same timeout directly and skips the waterfall.
 */
export function createTimeoutWrapper(): WaterfallListener<[call: ExecuteCall], ToolExecutionResult> {
  return (call, next) => {
    const timeoutMs = call.timeoutMs
    if (timeoutMs === undefined) return next()
    return withTimeout(call.toolName, timeoutMs, (signal) => next({ ...call, signal }))
  }
}
