import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
// `ctx.codeRuntime` is declared (structurally) by the tools package, which calls it; a type-only import.
import type {} from '@deepseek-ai/dsh-tools'
import { createQuickJsCodeRuntime, type QuickJsCodeRuntimeOptions } from './create-quickjs-code-runtime.ts'
import { invalidArgument } from './errors.ts'

/**
 * Provides `ctx.codeRuntime` (for `ctx` and its descendants) with a new QuickJS runtime made from
 * `options`: what the `run_code` transport (`installCodeMode` of `@deepseek-ai/dsh-tools`) runs
 * programs with, and what the presentation plugin waits for before it offers Code Mode. The
 * returned disposer (also run when the scope is disposed) removes the service and disposes the
 * runtime (its workers end; runs in flight end with kind `abort`).
 * @example
 * installTools(ctx)
 * installCodeRuntime(ctx, { limits: { timeoutMs: 10_000 } })
 * installCodeMode(ctx)
 */
export function installCodeRuntime(ctx: Context, options: QuickJsCodeRuntimeOptions = {}): Disposer {
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).provide !== 'function') {
    throw invalidArgument(
      `installCodeRuntime(ctx, options): ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    )
  }
  const runtime = createQuickJsCodeRuntime(options)
  let unprovide: Disposer
  try {
    unprovide = ctx.provide('codeRuntime', runtime)
  } catch (error) {
    runtime.dispose()
    throw error
  }
  let done = false
  let removeHook: Disposer | undefined = undefined
  const dispose = (): void => {
    if (done) return
    done = true
    removeHook?.()
    unprovide()
    runtime.dispose()
  }
  removeHook = ctx.onDispose(dispose)
  return dispose
}
