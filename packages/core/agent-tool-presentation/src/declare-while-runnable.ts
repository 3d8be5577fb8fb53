import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { RUN_CODE_TOOL_NAME } from '@deepseek-ai/dsh-tools'

/** Whether a model-direct `run_code` call in `ctx`'s scope would reach the Code Mode transport. */
function hasTransport(ctx: Context): boolean {
  return ctx.tools.get(RUN_CODE_TOOL_NAME) !== undefined
}

/**
 * `presentAs(mode)` for as long as a `run_code` call can work in `ctx`'s scope: while
 * `ctx.codeRuntime` exists (to run the program) and the `run_code` transport is visible there (to
 * receive the call). Either going away withdraws the declaration, and its return declares again.
 *
 * The transport is watched through `tools/change` on the root: it may be installed in any ancestor,
 * whose events a listener on `ctx` would not see. A declaration that fails while the plugin is
 * being set up (the scope already declared a mode) throws to the caller; one that fails later
 * (when a runtime or the transport appears) can only be logged.
 */
export function declareWhileRunnable(ctx: Context, mode: 'code' | 'both'): Disposer {
  let settingUp = true
  let setupError: { readonly error: unknown } | undefined
  let runtime = false
  let declared: Disposer | undefined

  const declare = (): void => {
    try {
      declared = ctx.tools.presentAs(mode)
    } catch (error) {
      if (settingUp) setupError = { error }
      else {
        ctx.logger.error(
          `agentToolPresentation: Code Mode became available but scope "${ctx.scope.name}" could not declare presentation mode "${mode}"`,
          { error },
        )
      }
    }
  }

  const withdraw = (): void => {
    const undo = declared
    declared = undefined
    undo?.()
  }

  // presentAs emits tools/change (reason "present", no names), so the listener below never re-enters.
  const sync = (): void => {
    const transport = hasTransport(ctx)
    if (runtime && transport) {
      if (declared === undefined) declare()
      return
    }
    if (declared === undefined) return
    withdraw()
    if (runtime && !transport) {
      ctx.logger.warn(
        `agentToolPresentation: the Code Mode transport (${RUN_CODE_TOOL_NAME}) left scope "${ctx.scope.name}"; presentation mode "${mode}" is withdrawn until installCodeMode(ctx) installs it again`,
      )
    }
  }

  const stopWatchingRuntime = ctx.whenAvailable('codeRuntime', () => {
    runtime = true
    sync()
    return () => {
      runtime = false
      sync()
    }
  })
  const stopWatchingTransport = ctx.root.on('tools/change', (change) => {
    if (change.names.includes(RUN_CODE_TOOL_NAME)) sync()
  })
  let disposed = false
  const dispose = (): void => {
    if (disposed) return
    disposed = true
    stopWatchingTransport()
    stopWatchingRuntime()
    withdraw()
  }
  settingUp = false
  if (setupError !== undefined) {
    dispose()
    throw setupError.error
  }
  return dispose
}
