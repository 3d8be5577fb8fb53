import { z } from 'zod'
import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import {
  defineTool,
  installTools,
  type InstallToolsOptions,
  type ToolExecutionInput,
} from '@deepseek-ai/dsh-tools'

export function setup(options: InstallToolsOptions = {}): { ctx: Context; logger: MemoryLogger } {
  const logger = createMemoryLogger()
  const ctx = createContext({ logger })
  installTools(ctx, options)
  return { ctx, logger }
}

export const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back',
  parameters: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  execute: ({ text }) => text,
})

export function tool(name: string, execute: (args: Record<string, unknown>) => unknown = () => name) {
  return defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({}).catchall(z.unknown()),
    strict: false,
    execute: (args) => execute(args),
  })
}

let next = 0
export function call(
  name: string,
  args: unknown = {},
  extra: Partial<ToolExecutionInput> = {},
): ToolExecutionInput {
  next += 1
  return {
    callId: `call_${next}`,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
    ...extra,
  }
}

export function codeOf(result: { isError: boolean; error?: { info?: { code: string } } }): string {
  return result.isError ? (result.error?.info?.code ?? 'NO_CODE') : 'OK'
}

export { deferred } from '../../../../test-support/deferred.ts'

export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
