import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { installSystemPrompt } from '@deepseek-ai/dsh-tools'
import { ToolPresentationError } from './errors.ts'
import { readConfig, type ToolPresentationConfig } from './read-config.ts'

const WHERE = 'agentToolPresentation(ctx, config)'

/**
 * The presentation selector plugin (docs/spec.md T8): declares how the tools of `ctx`'s scope (and its
 * descendants without a declaration of their own) are shown to the model.
 *
 * - `native`: `ctx.tools.presentAs('native')` at once.
 * - `code` / `both`: declared only while `ctx.codeRuntime` exists — at once if it does, else when it
 *   appears; undeclared when it goes away (and declared again if another one comes). Without a
 *   runtime the scope keeps whatever was in force, so the model is never offered `run_code` that
 *   nothing could run.
 *
 * If no `ctx.systemPrompt` is reachable, the plugin installs one on `ctx` (the loop only shows
 * `run_code` through it). The returned disposer undoes all of it; it is idempotent.
 * @example
 * installTools(ctx)
 * const dispose = agentToolPresentation(ctx, { mode: 'code' })
 */
export function agentToolPresentation(ctx: Context, config: ToolPresentationConfig): Disposer {
  if (
    typeof ctx !== 'object' ||
    ctx === null ||
    typeof (ctx as Partial<Context>).whenAvailable !== 'function'
  ) {
    throw new ToolPresentationError({
      code: 'INVALID_ARGUMENT',
      message: `${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    })
  }
  const { mode } = readConfig(WHERE, config)
  const tools = (ctx as { tools?: Context['tools'] }).tools
  if (tools === undefined) {
    throw new ToolPresentationError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: scope "${ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  const disposePrompt = ctx.systemPrompt === undefined ? installSystemPrompt(ctx) : undefined
  let disposeMode: Disposer
  try {
    disposeMode = mode === 'native' ? tools.presentAs('native') : declareWhileRuntimeExists(ctx, mode)
  } catch (error) {
    disposePrompt?.()
    throw error
  }
  let disposed = false
  return () => {
    if (disposed) return
    disposed = true
    disposeMode()
    disposePrompt?.()
  }
}

/**
 * `presentAs(mode)` for as long as `ctx.codeRuntime` is there. A declaration that fails while the
 * plugin is being set up (the scope already declared a mode) throws to the caller; one that fails
 * later, when a runtime appears, can only be logged.
 */
function declareWhileRuntimeExists(ctx: Context, mode: 'code' | 'both'): Disposer {
  let settingUp = true
  let setupError: { readonly error: unknown } | undefined
  const dispose = ctx.whenAvailable('codeRuntime', () => {
    try {
      return ctx.tools.presentAs(mode)
    } catch (error) {
      if (settingUp) setupError = { error }
      else {
        ctx.logger.error(
          `agentToolPresentation: a code runtime appeared but scope "${ctx.scope.name}" could not declare presentation mode "${mode}"`,
          { error },
        )
      }
      return undefined
    }
  })
  settingUp = false
  if (setupError !== undefined) {
    dispose()
    throw setupError.error
  }
  return dispose
}
