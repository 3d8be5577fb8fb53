import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'
import { installCodeMode } from '@deepseek-ai/dsh-tools'
import type { PresentationMode } from '../cli/parse-demo-args.ts'
import { DemoError } from '../errors.ts'

/** `installCodeRuntime` of `@deepseek-ai/dsh-code-runtime`: provides `ctx.codeRuntime` (QuickJS in workers). */
export type InstallCodeRuntime = (ctx: Context) => Disposer

/**
 * What the demo needs to show tools in `mode`: nothing for `native`; for `code` and `both`, the code
 * runtime's `installCodeRuntime`, loaded only then, so the native demo never loads the sandbox. A
 * runtime that cannot be loaded is a `DemoError` `UNAVAILABLE`, before anything is created.
 */
export async function preparePresentation(mode: PresentationMode): Promise<InstallCodeRuntime | undefined> {
  if (mode === 'native') return undefined
  let install: unknown
  try {
    install = ((await import('@deepseek-ai/dsh-code-runtime')) as Record<string, unknown>)[
      'installCodeRuntime'
    ]
  } catch (error) {
    throw new DemoError({
      code: 'UNAVAILABLE',
      message: `--mode ${mode} needs @deepseek-ai/dsh-code-runtime, which could not be loaded (${(error as Error).message}); build it with pnpm build`,
      cause: error,
    })
  }
  if (typeof install !== 'function') {
    throw new DemoError({
      code: 'UNAVAILABLE',
      message: `--mode ${mode} needs installCodeRuntime from @deepseek-ai/dsh-code-runtime, which this build does not have. Use --mode native.`,
    })
  }
  return install as InstallCodeRuntime
}

/**
 * Shows the agent's tools to the model in `mode`. For `code` and `both`: a code runtime
 * (`ctx.codeRuntime`), the `run_code` transport (`installCodeMode`, whose programs' calls go through
 * the same pipeline, permission rules and approvals, recorded as nested calls), then the mode
 * (`agentToolPresentation`, which also installs `ctx.systemPrompt` for the SDK). Returns the disposer.
 */
export function installPresentation(
  ctx: Context,
  options: {
    readonly mode: PresentationMode
    readonly installCodeRuntime: InstallCodeRuntime | undefined
    /** Nested calls of one program running at once (the demo uses its pool size). */
    readonly maxParallelSubCalls: number
  },
): Disposer {
  const { mode, installCodeRuntime } = options
  const disposers: Disposer[] = []
  if (mode !== 'native') {
    if (installCodeRuntime === undefined)
      throw new DemoError({ code: 'UNAVAILABLE', message: `--mode ${mode} needs a code runtime` })
    disposers.push(
      installCodeRuntime(ctx),
      installCodeMode(ctx, { maxParallelSubCalls: options.maxParallelSubCalls }),
    )
  }
  disposers.push(agentToolPresentation(ctx, { mode }))
  return () => {
    for (const dispose of disposers.reverse()) dispose()
  }
}
