import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'
import type { PresentationMode } from '../cli/parse-demo-args.ts'
import { DemoError } from '../errors.ts'

type InstallCodeRuntime = (ctx: Context) => Disposer

/**
 * `installCodeRuntime` of `@deepseek-ai/dsh-code-runtime`, once it has one. It comes with the
 * `run_code` transport (Code Mode end to end, T32–T33), which is not in this build yet; it is looked
 * up by name so the demo picks it up as soon as it is. Loaded only for `--mode code|both`, so the
 * native demo never loads the sandbox.
 */
async function loadInstallCodeRuntime(): Promise<InstallCodeRuntime | undefined> {
  try {
    const runtime = (await import('@deepseek-ai/dsh-code-runtime')) as Record<string, unknown>
    const candidate = runtime['installCodeRuntime']
    return typeof candidate === 'function' ? (candidate as InstallCodeRuntime) : undefined
  } catch {
    return undefined
  }
}

/**
 * What the demo needs to show tools in `mode`: nothing for `native`; for `code` and `both`, the code
 * runtime's `installCodeRuntime`. A mode it cannot run yet is a `DemoError` `UNAVAILABLE`, before
 * anything is created: the transport is missing, or the scripted story has no Code Mode script.
 */
export async function preparePresentation(
  mode: PresentationMode,
  options: { readonly scripted: boolean },
): Promise<InstallCodeRuntime | undefined> {
  if (mode === 'native') return undefined
  const install = await loadInstallCodeRuntime()
  if (install === undefined) {
    throw new DemoError({
      code: 'UNAVAILABLE',
      message: `--mode ${mode} is not available yet: Code Mode needs the run_code transport (installCodeRuntime from @deepseek-ai/dsh-code-runtime), which this build does not have. Use --mode native.`,
    })
  }
  if (options.scripted) {
    throw new DemoError({
      code: 'UNAVAILABLE',
      message: `--mode ${mode} is not available with the scripted model yet (its story has no Code Mode script); set DSH_API_KEY to try it on a real model, or use --mode native.`,
    })
  }
  return install
}

/** Shows the agent's tools to the model in `mode`; returns the disposer of what it installed. */
export function installPresentation(
  ctx: Context,
  mode: PresentationMode,
  installCodeRuntime: InstallCodeRuntime | undefined,
): Disposer {
  const disposers: Disposer[] = []
  if (installCodeRuntime !== undefined) disposers.push(installCodeRuntime(ctx))
  disposers.push(agentToolPresentation(ctx, { mode }))
  return () => {
    for (const dispose of disposers.reverse()) dispose()
  }
}
