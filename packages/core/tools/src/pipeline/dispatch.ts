import type { ScheduledToolDispatch } from '../scheduler/scheduler-types.ts'
import type { ExecuteCall, ToolExecutionResult } from '../types.ts'
import { describeThrown, failure } from './results.ts'
import { runBody } from './run-body.ts'
import { handOut, type RunState } from './run-state.ts'
import { settleOrAbort } from './signals.ts'

function looksLikeResult(value: unknown): value is ToolExecutionResult {
  if (typeof value !== 'object' || value === null) return false
  const { isError, content } = value as { isError?: unknown; content?: unknown }
  if (!Array.isArray(content)) return false
  if (isError === false) return true
  if (isError !== true) return false
  const error = (value as { error?: unknown }).error
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  )
}

/**
 * SPEC §5 steps 6–7: the `tools/execute` wrappers around the body, and nothing else, so dispatches
 * may overlap while policy stays ordered. A wrapper may pass `next({ ...call, signal })`: only the
 * signal is honoured, fused with the caller's. Wrapper failures fail the call closed.
 */
export async function dispatchCall(run: RunState): Promise<ScheduledToolDispatch> {
  run.stage = 'dispatching'
  let result: ToolExecutionResult
  if (run.state.ctx.hasListeners('tools/execute')) {
    const call: ExecuteCall = Object.freeze({
      ...run.call,
      signal: run.signal,
      timeoutMs: run.tool?.definition.timeoutMs ?? run.state.registry.options.defaultTimeoutMs,
    })
    try {
      const wrapped = run.state.ctx.waterfall('tools/execute', call, (inner) =>
        runBody(run, readSignal(inner)),
      )
      const settled = await settleOrAbort(wrapped, run.signal, () => {})
      if (settled.kind === 'error') throw settled.error
      result =
        settled.kind === 'aborted'
          ? failure('ABORTED', `Tool "${run.toolName}" was aborted before it finished.`)
          : readResult(settled.value, run.toolName)
    } catch (error) {
      result = failure(
        'PIPELINE_FAILED',
        `A tools/execute wrapper failed for "${run.toolName}": ${describeThrown(error)}`,
      )
    }
  } else {
    result = await runBody(run, undefined)
  }
  const code = result.isError ? result.error.info?.code : undefined
  return handOut(run, code === 'ABORTED' ? 'final-result' : 'post-result', result)
}

function readSignal(inner: unknown): AbortSignal | undefined {
  try {
    const signal = (inner as { signal?: unknown } | null)?.signal
    return signal instanceof AbortSignal ? signal : undefined
  } catch {
    return undefined
  }
}

function readResult(raw: unknown, toolName: string): ToolExecutionResult {
  try {
    if (looksLikeResult(raw)) return raw
  } catch {
    // fall through: a hostile object is as bad as a malformed one
  }
  return failure(
    'PIPELINE_FAILED',
    `A tools/execute wrapper returned something that is not a tool result for "${toolName}".`,
  )
}
