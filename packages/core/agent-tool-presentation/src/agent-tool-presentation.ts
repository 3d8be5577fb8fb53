import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME, installSystemPrompt } from '@deepseek-ai/dsh-tools'
import { declareWhileRunnable } from './declare-while-runnable.ts'
import { ToolPresentationError } from './errors.ts'
import { readConfig, type ToolPresentationConfig } from './read-config.ts'

const WHERE = 'agentToolPresentation(ctx, config)'

/**
 * The presentation selector plugin (docs/spec.md T8): declares how the tools of `ctx`'s scope (and its
 * descendants without a declaration of their own) are shown to the model.
 *
 * - `native`: `ctx.tools.presentAs('native')` at once.
 * - `code` / `both`: needs the `run_code` transport (`installCodeMode`) in the scope at setup, else
 *   throws `NOT_INSTALLED`. Declared only while a `run_code` call can work: while `ctx.codeRuntime`
 *   exists and the transport is still there — at once if both are, else when they are; undeclared
 *   when either goes away (and declared again when it returns). Meanwhile the scope keeps whatever
 *   was in force, so the model is never offered a `run_code` that nothing could receive or run.
 *
 * If no `ctx.systemPrompt` is reachable, the plugin installs one on `ctx` (the loop only shows
 * `run_code` through it). The returned disposer undoes all of it; it is idempotent, and runs by
 * itself when `ctx`'s scope is disposed.
 * @example
 * installTools(ctx)
 * installCodeMode(ctx)
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
  if (mode !== 'native' && tools.get(RUN_CODE_TOOL_NAME) === undefined) {
    // The runtime may legitimately come later (a sandbox that boots); the transport is configuration
    // installed next to this plugin, so its absence is a mistake to report now, not a silent fallback.
    throw new ToolPresentationError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: mode "${mode}" offers the model ${RUN_CODE_TOOL_NAME}, but scope "${ctx.scope.name}" has no Code Mode transport to receive it; call installCodeMode(ctx) (@deepseek-ai/dsh-tools) before this plugin`,
    })
  }
  const disposePrompt = ctx.systemPrompt === undefined ? installSystemPrompt(ctx) : undefined
  let disposeMode: Disposer
  try {
    disposeMode = mode === 'native' ? tools.presentAs('native') : declareWhileRunnable(ctx, mode)
  } catch (error) {
    disposePrompt?.()
    throw error
  }
  let disposed = false
  const dispose = (): void => {
    if (disposed) return
    disposed = true
    forgetScope()
    disposeMode()
    disposePrompt?.()
  }
  // The watchers listen on the root (the transport and a system prompt's registry may live above
  // ctx); they must go with ctx's scope even when nobody calls the disposer.
  const forgetScope = ctx.onDispose(dispose)
  return dispose
}
