import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { vi } from 'vitest'
import { mcpTools, type McpConfig, type McpTools } from '../src/index.ts'

// These tests start real server processes; on a loaded machine that alone can take seconds. Nothing
// here asserts a duration: the limits only keep a broken test from hanging.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })

/** The fixture MCP server (a real process, written with the same SDK). */
export const FIXTURE = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url))

export const stdioServer = (timeoutMs?: number) =>
  ({
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURE],
    stderr: 'ignore',
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  }) as const

export interface HttpFixture {
  readonly url: string
  readonly child: ChildProcess
  /** What the server recorded (read over plain HTTP, outside MCP). */
  events(): Promise<string[]>
  stop(): Promise<void>
}

/** Starts the fixture as a streamable HTTP server on 127.0.0.1 (a random port). */
export async function startHttpFixture(): Promise<HttpFixture> {
  const child = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout! })
  const [line] = (await once(lines, 'line')) as [string]
  lines.close()
  const url = /^LISTENING (\S+)$/.exec(line)?.[1]
  if (url === undefined) throw new Error(`the HTTP fixture printed ${line}`)
  const exited = once(child, 'exit')
  return {
    url,
    child,
    events: async () => (await (await fetch(new URL('/events', url))).json()) as string[],
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill()
      await exited
    },
  }
}

export interface Setup {
  readonly ctx: Context
  readonly mcp: McpTools
  readonly logger: MemoryLogger
}

const cleanups: (() => Promise<void>)[] = []

/** A root ctx with tools installed and the plugin set up; `cleanup()` disposes it. */
export async function setup(config: McpConfig, options: { readonly ctx?: Context } = {}): Promise<Setup> {
  const logger = createMemoryLogger()
  const ctx = options.ctx ?? createContext({ logger })
  if (options.ctx === undefined) installTools(ctx)
  const mcp = mcpTools(ctx, config)
  cleanups.push(async () => {
    mcp()
    await mcp.closed
  })
  await mcp.ready
  return { ctx, mcp, logger }
}

export async function cleanup(): Promise<void> {
  for (const clean of cleanups.splice(0).reverse()) await clean()
}

let nextId = 0

export function call(
  ctx: Context,
  name: string,
  args: JsonObject = {},
  signal?: AbortSignal,
): Promise<ToolExecutionResult> {
  nextId++
  return ctx.tools.execute({
    callId: `call-${nextId}`,
    name,
    arguments: args,
    ...(signal === undefined ? {} : { signal }),
  })
}

/** The text blocks of a result, joined. */
export const text = (result: ToolExecutionResult): string =>
  result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')

/** The fixture's recorded events, read over MCP. */
export async function events(ctx: Context, server = 'fx'): Promise<string[]> {
  const result = await call(ctx, `mcp__${server}__events`)
  if (result.isError) throw new Error(`events failed: ${result.error.message}`)
  return (result.value as { events: string[] }).events
}
