import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { calculateTool } from './calculate.ts'
import { checkServiceTool } from './check-service.ts'
import { clockTool } from './clock.ts'
import { grepDocsTool } from './grep-docs.ts'
import { listDocsTool } from './list-docs.ts'
import { longTaskTool, type JobGate } from './long-task.ts'
import { readDocTool } from './read-doc.ts'
import { writeNoteTool } from './write-note.ts'

export interface DemoToolOptions {
  /** The folder the read-only file tools serve (the repository's docs/). */
  readonly docs: string
  /** The only folder `write_note` writes to. */
  readonly scratch: string
  /** How long one step of `long_task` takes; the docs tools take a quarter of it (see `DocsToolOptions`). */
  readonly stepMs: number
  readonly now?: () => Date
  /** What a `long_task` job waits for once its steps are done (see `longTaskTool`). */
  readonly jobGate?: JobGate | undefined
}

/** Registers the demo's tools on `ctx.tools` (installed by the caller); the disposer removes them. */
export function registerDemoTools(ctx: Context, options: DemoToolOptions): Disposer {
  const root = { path: options.docs, label: 'docs/' }
  const docs = { latencyMs: Math.round(options.stepMs / 4) }
  const disposers = [
    ctx.tools.register(listDocsTool(root, docs)),
    ctx.tools.register(readDocTool(root, docs)),
    ctx.tools.register(grepDocsTool(root, docs)),
    ctx.tools.register(calculateTool()),
    ctx.tools.register(clockTool(options.now === undefined ? {} : { now: options.now })),
    ctx.tools.register(longTaskTool({ stepMs: options.stepMs, gate: options.jobGate })),
    ctx.tools.register(writeNoteTool({ scratch: options.scratch })),
    ctx.tools.register(checkServiceTool()),
  ]
  return () => {
    for (const dispose of disposers.reverse()) dispose()
  }
}
