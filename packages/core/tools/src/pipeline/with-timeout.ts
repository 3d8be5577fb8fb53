import type { Context, Disposer, WaterfallListener } from '@deepseek-ai/dsh-context'
import { deepFreeze } from '@deepseek-ai/dsh-llm'
import { toolMessages } from '../contract/messages.ts'
import { failure } from '../contract/results.ts'
import { CALL_DEFINITION } from '../contract/is-call-to.ts'
import type { AnyToolDefinition, ExecuteCall, ToolExecutionResult } from '../contract/types.ts'
import { CALL_PROGRESS, idleTimeLeft, type ProgressClock } from './idle-timeout.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import { timeoutReason } from './call-signal.ts'
import type { RunState } from './run-state.ts'

// T17, the body's timeout, in one place: which timeout a call has (`timeoutOf`), the shipped
// `tools/execute` wrapper that enforces it (`createTimeoutWrapper`, registered by
// `installShippedTimeout`), and when the pipeline may apply it itself instead of running the
// waterfall (`timeoutAppliesDirectly`). The direct path's timer races the body in signals.ts.

/** The call's `timeoutMs`: the tool's, else the runtime default. */
export function timeoutOf(run: RunState): number | undefined {
  const own = run.tool?.definition.timeoutMs
  if (own === undefined) return run.state.registry.options.defaultTimeoutMs
  // the tool's own value wins; 0 or Infinity there means none, whatever the default (T47)
  return own === 0 || own === Infinity ? undefined : own
}

/**
 * True when the only `tools/execute` listener (`wrappers` of them) is the shipped timeout wrapper:
 * dispatch then applies the same timeout directly and skips the waterfall.
 */
export function timeoutAppliesDirectly(registry: RegistryState, wrappers: number): boolean {
  return wrappers === 1 && registry.shippedTimeout
}

/**
 * Registers the shipped timeout wrapper innermost (priority -1000) unless `enforceTimeouts` is
 * `false`; the disposer removes it and stops the direct path.
 */
export function installShippedTimeout(ctx: Context, registry: RegistryState): Disposer {
  if (!registry.shippedTimeout) return () => {}
  const dispose = ctx.on('tools/execute', createTimeoutWrapper(), { priority: -1000 })
  return () => {
    registry.shippedTimeout = false
    dispose()
  }
}

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
    const resets = (call as { readonly [CALL_DEFINITION]?: AnyToolDefinition })[CALL_DEFINITION]
      ?.progressResetsTimeout
    const clock = (call as { readonly [CALL_PROGRESS]?: ProgressClock })[CALL_PROGRESS]
    const idle = resets === undefined || clock === undefined ? undefined : { clock, maxMs: resets.maxMs }
    return withTimeout(call.toolName, timeoutMs, (signal) => next({ ...call, signal }), idle)
  }
}

/**
 * T17: runs `inner` with a signal that aborts after `timeoutMs`, and settles with `TIMEOUT` at that
 * moment whether or not `inner` has. One controller and one timer per call, both dropped when
 * `inner` settles first; nothing is attached to any longer-lived signal. What a body does after
 * its timeout is reported once by the pipeline (`tools/late-outcome`), not here.
 */
export function withTimeout(
  toolName: string,
  timeoutMs: number,
  inner: (signal: AbortSignal) => Promise<ToolExecutionResult>,
  idle?: { readonly clock: ProgressClock; readonly maxMs: number },
): Promise<ToolExecutionResult> {
  const controller = new AbortController()
  return new Promise<ToolExecutionResult>((resolve, reject) => {
    const startedAt = idle === undefined ? 0 : performance.now()
    const timeUp = (): void => {
      if (idle !== undefined) {
        const left = idleTimeLeft({ ...idle, timeoutMs, startedAt, now: performance.now() })
        if (left > 0) {
          timer = setTimeout(timeUp, left)
          return
        }
      }
      controller.abort(timeoutReason(timeoutMs))
      // frozen like any result a wrapper gets from next() (T14)
      resolve(deepFreeze(failure('TIMEOUT', toolMessages.timedOut(toolName, timeoutMs))))
    }
    let timer = setTimeout(timeUp, idle === undefined ? timeoutMs : Math.min(timeoutMs, idle.maxMs))
    inner(controller.signal).then(
      (result) => {
        clearTimeout(timer)
        resolve(result)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
