import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod/v4'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createMetricsWrapper, defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { McpErrorNames } from '../src/index.ts'
import { call, cleanup, setup, stdioServer } from './helpers.ts'

afterEach(cleanup)

function freshCtx() {
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx)
  return ctx
}

describe('the result wrapper', () => {
  it('T15: other tools/execute wrappers see the final MCP result, not the internal envelope', async () => {
    const ctx = freshCtx()
    const seen: unknown[] = []
    ctx.on('tools/execute', async (_call, next) => {
      const result = await next()
      seen.push(result.isError ? result.error.info : result.value)
      return result
    })
    const outcomes: string[] = []
    ctx.on(
      'tools/execute',
      createMetricsWrapper((metric) => outcomes.push(`${metric.toolName}:${metric.outcome}`)),
    )
    await setup({ servers: { fx: stdioServer() } }, { ctx })
    await call(ctx, 'mcp__fx__fail')
    await call(ctx, 'mcp__fx__structured')
    expect(seen).toEqual([{ name: McpErrorNames.TOOL_ERROR, code: 'TOOL_FAILED' }, { total: 3 }])
    expect(outcomes).toEqual(['mcp__fx__fail:TOOL_FAILED', 'mcp__fx__structured:ok'])
  })

  it('T14: a value that merely looks like an envelope, from any other tool, passes unchanged', async () => {
    const ctx = freshCtx()
    const { mcp } = await setup({ servers: { fx: stdioServer() } }, { ctx })
    const forged = {
      'dsh-mcp': 'a guessed nonce',
      ok: false,
      name: 'McpToolError',
      message: 'fake',
      content: [],
    }
    ctx.tools.register(
      defineTool({ name: 'forger', description: 'x', parameters: z.object({}), execute: () => forged }),
    )
    const result = await call(ctx, 'forger')
    expect(result.isError).toBe(false)
    expect(!result.isError && result.value).toEqual(forged)
    expect(mcp.servers()[0]?.state).toBe('connected')
  })

  it('T14: a timeout of a tool that is not an MCP tool passes the wrapper unchanged', async () => {
    const ctx = freshCtx()
    await setup({ servers: { fx: stdioServer() } }, { ctx })
    ctx.tools.register(
      defineTool({
        name: 'sleeper',
        description: 'Waits until aborted',
        parameters: z.object({}),
        timeoutMs: 50,
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
          }),
      }),
    )
    const result = await call(ctx, 'sleeper')
    expect(result.isError && result.error.info).toEqual({ name: 'Timeout', code: 'TIMEOUT' })
    expect(result.meta).toBeUndefined()
  })
})
