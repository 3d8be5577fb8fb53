import { getEventListeners } from 'node:events'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { McpErrorNames, TOOL_NAME_RULE } from '../src/index.ts'
import { FIXTURE, call, cleanup, events, setup, stdioServer, text } from './helpers.ts'

afterEach(cleanup)

/** Collects unhandled rejections while a test runs (vitest would also fail the run on one). */
function watchRejections(): { readonly seen: unknown[]; stop(): void } {
  const seen: unknown[] = []
  const listener = (reason: unknown): void => {
    seen.push(reason)
  }
  process.on('unhandledRejection', listener)
  return { seen, stop: () => process.off('unhandledRejection', listener) }
}

describe('registration over stdio', () => {
  it('T4: registers the server tools as ordinary scoped tools named mcp__server__tool, each valid for the registry', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: stdioServer() } })
    const [status] = mcp.servers()
    expect(status?.state).toBe('connected')
    const names = ctx.tools.list().map((tool) => tool.name)
    expect(names).toContain('mcp__fx__echo')
    expect(names).toContain('mcp__fx__files_read')
    for (const name of names) expect(name).toMatch(TOOL_NAME_RULE)
    const long = names.find((name) => name.startsWith('mcp__fx__long_'))
    expect(long).toHaveLength(64)
    expect(status?.tools.find((tool) => tool.name === long)?.mcpName).toBe(`long_${'x'.repeat(70)}`)
    const echo = ctx.tools.schemas().find((schema) => schema.name === 'mcp__fx__echo')
    expect(echo).toEqual({
      name: 'mcp__fx__echo',
      description: 'Echo a text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    })
  })

  it('T13: a server slower to start than its timeoutMs still connects: the handshake and listing get at least the default', async () => {
    // the fixture starts 1.5 s late, three times its 500 ms call timeout
    const late = `setTimeout(() => import(${JSON.stringify(pathToFileURL(FIXTURE).href)}), 1500)`
    const { ctx, mcp } = await setup({
      servers: { fx: { ...stdioServer(500), args: ['-e', late] } },
    })
    expect(mcp.servers()[0]?.state).toBe('connected')
    expect(ctx.tools.get('mcp__fx__echo')?.timeoutMs).toBe(500)
    expect(text(await call(ctx, 'mcp__fx__echo', { text: 'late' }))).toContain('late')
  })

  it('T13: a tool whose schema is invalid is skipped with a logged reason; the rest of the server still registers', async () => {
    const { ctx, mcp, logger } = await setup({ servers: { fx: stdioServer() } })
    const [status] = mcp.servers()
    const reasons = Object.fromEntries(status!.skipped.map((skip) => [skip.tool, skip.reason]))
    expect(reasons.bad_schema).toMatch(/parameters are not a valid JSON Schema .*properties\/x\/type/)
    expect(reasons.not_object).toBe('its inputSchema must have type "object" at the root, got "string"')
    expect(ctx.tools.get('mcp__fx__bad_schema')).toBeUndefined()
    expect(ctx.tools.get('mcp__fx__not_object')).toBeUndefined()
    expect(ctx.tools.get('mcp__fx__echo')).toBeDefined()
    const warnings = logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)
    expect(warnings).toContain(`MCP server "fx": skipped tool "bad_schema": ${reasons.bad_schema}`)
    expect(warnings).toContain(`MCP server "fx": skipped tool "not_object": ${reasons.not_object}`)
  })

  it('T11: two MCP names that sanitize to one dsh name: the first listed keeps it, the other is skipped and says why', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: stdioServer() } })
    const [status] = mcp.servers()
    expect(status?.tools.find((tool) => tool.name === 'mcp__fx__files_read')?.mcpName).toBe('files.read')
    expect(status?.skipped).toContainEqual({
      tool: 'files_read',
      reason: 'its name becomes "mcp__fx__files_read", which tool "files.read" of this server already has',
    })
    const result = await call(ctx, 'mcp__fx__files_read')
    expect(text(result)).toBe('ran files.read')
    expect(result.meta).toEqual({ mcp: { server: 'fx', tool: 'files.read' } })
  })

  it('T11: a name another registrant already holds in the scope is a skipped tool, not a failed server', async () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    installTools(ctx)
    const { defineTool } = await import('@deepseek-ai/dsh-tools')
    const { z } = await import('zod/v4')
    ctx.tools.register(
      defineTool({
        name: 'mcp__fx__echo',
        description: 'mine',
        parameters: z.object({}),
        execute: () => 'mine',
      }),
      { registrant: 'someone else' },
    )
    const { mcp } = await setup({ servers: { fx: stdioServer() } }, { ctx })
    const [status] = mcp.servers()
    expect(status?.state).toBe('connected')
    expect(status?.skipped.find((skip) => skip.tool === 'echo')?.reason).toMatch(
      /mcp__fx__echo.*someone else/,
    )
    expect(status?.tools.map((tool) => tool.name)).toContain('mcp__fx__fail')
    expect(ctx.tools.get('mcp__fx__echo')?.description).toBe('mine')
  })
})

describe('results over stdio', () => {
  it('T15: a success maps text content, and structuredContent becomes the value', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    expect(await call(ctx, 'mcp__fx__echo', { text: 'hi' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'hi' }],
      meta: { mcp: { server: 'fx', tool: 'echo' } },
    })
    const structured = await call(ctx, 'mcp__fx__structured')
    expect(structured.isError).toBe(false)
    expect(!structured.isError && structured.value).toEqual({ total: 3 })
    expect(text(structured)).toBe('{"total":3}')
  })

  it('T16: isError from the server is an error result named McpToolError with code TOOL_FAILED and the server content', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    const result = await call(ctx, 'mcp__fx__fail')
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'it broke' }],
      error: { message: 'it broke', info: { name: McpErrorNames.TOOL_ERROR, code: 'TOOL_FAILED' } },
      meta: { mcp: { server: 'fx', tool: 'fail' } },
    })
    expect(Object.isFrozen(result)).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('T16: a JSON-RPC error answer is McpRequestFailed, and the connection stays usable', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: stdioServer() } })
    const result = await call(ctx, 'mcp__fx__rpc_error')
    expect(result.isError && result.error).toEqual({
      message:
        'MCP server "fx" could not run tool "rpc_error": MCP error -32602: the server refused this call',
      info: { name: McpErrorNames.REQUEST_FAILED, code: 'TOOL_FAILED' },
    })
    expect(mcp.servers()[0]?.state).toBe('connected')
    expect(text(await call(ctx, 'mcp__fx__echo', { text: 'fine' }))).toBe('fine')
  })

  it('T14/T71: every kind of MCP content reaches the result: images and audio as themselves, resources as text notes', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    const result = await call(ctx, 'mcp__fx__media')
    expect(result.content).toEqual([
      { type: 'text', text: 'a picture:' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'audio', mediaType: 'audio/wav', data: 'UklGRg==' },
      { type: 'text', text: '[resource file:///notes.md (text/markdown)]\n# Notes' },
      { type: 'text', text: '[resource file:///logo.png (image/png)]' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      {
        type: 'text',
        text: '[resource file:///data.bin (application/octet-stream): 3 bytes of binary data, not shown]',
      },
      { type: 'text', text: '[resource link big.csv: file:///big.csv (text/csv)]' },
    ])
  })

  it('T1: arguments are checked against the server schema before anything is sent', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    const result = await call(ctx, 'mcp__fx__echo', { text: 42 })
    expect(result.isError && result.error.info?.code).toBe('INVALID_ARGUMENTS')
    expect(await events(ctx)).not.toContain('call:echo')
  })
})

describe('failures over stdio', () => {
  it('T13: a server that crashes mid-call: that call, a call in flight beside it and every later call get McpServerClosed, with no hang and no unhandled rejection', async () => {
    const rejections = watchRejections()
    try {
      const { ctx, mcp, logger } = await setup({ servers: { fx: stdioServer() } })
      const inFlight = call(ctx, 'mcp__fx__slow', { id: 'beside' })
      await call(ctx, 'mcp__fx__await_event', { event: 'slow:start:beside' })
      const crashed = await call(ctx, 'mcp__fx__crash')
      const expected = {
        name: McpErrorNames.SERVER_CLOSED,
        code: 'TOOL_FAILED',
      }
      expect(crashed.isError && crashed.error.info).toEqual(expected)
      expect(crashed.isError && crashed.error.message).toBe(
        'MCP server "fx" is not connected: its process exited.',
      )
      const beside = await inFlight
      expect(beside.isError && beside.error.info).toEqual(expected)
      const later = await call(ctx, 'mcp__fx__echo', { text: 'anyone there?' })
      expect(later.isError && later.error.info).toEqual(expected)
      expect(mcp.servers()[0]).toMatchObject({ state: 'closed', reason: 'its process exited' })
      // The tools stay registered: the model reads why they fail instead of seeing them vanish.
      expect(ctx.tools.get('mcp__fx__echo')).toBeDefined()
      expect(logger.entries.map((entry) => entry.message)).toContain(
        `MCP server "fx" is closed: its process exited; its ${mcp.servers()[0]!.tools.length} tools answer McpServerClosed from now on (no automatic reconnect)`,
      )
    } finally {
      rejections.stop()
    }
    expect(rejections.seen).toEqual([])
  })

  it('T38: an abort is forwarded as notifications/cancelled: the server sees it and the call answers ABORTED', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    const controller = new AbortController()
    const pending = call(ctx, 'mcp__fx__slow', { id: 'a' }, controller.signal)
    await call(ctx, 'mcp__fx__await_event', { event: 'slow:start:a' })
    controller.abort(new Error('the user pressed stop'))
    const result = await pending
    expect(result.isError && result.error.info?.code).toBe('ABORTED')
    const seen = await call(ctx, 'mcp__fx__await_event', { event: 'slow:cancelled:a' })
    expect(text(seen)).toBe('seen slow:cancelled:a')
    expect(await events(ctx)).not.toContain('slow:released:a')
    // The connection is still good after a cancellation.
    expect(text(await call(ctx, 'mcp__fx__echo', { text: 'still here' }))).toBe('still here')
  })

  it('T38: a long-lived caller signal keeps no listener from finished calls, so a later abort cancels nothing', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    // Without the timeout wrapper the body gets the caller's own signal.
    installTools(ctx, { enforceTimeouts: false })
    await setup({ servers: { fx: stdioServer() } }, { ctx })
    const turn = new AbortController()
    for (let i = 0; i < 12; i++) {
      expect(text(await call(ctx, 'mcp__fx__echo', { text: `#${i}` }, turn.signal))).toBe(`#${i}`)
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0)
  })

  it('T17: a server that does not answer within timeoutMs: McpTimeout with code TIMEOUT, and the server is told to cancel', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer(2_000) } })
    expect(ctx.tools.get('mcp__fx__slow')?.timeoutMs).toBe(2_000)
    const result = await call(ctx, 'mcp__fx__slow', { id: 't' })
    expect(result.isError && result.error.info).toEqual({ name: McpErrorNames.TIMEOUT, code: 'TIMEOUT' })
    expect(result.meta).toEqual({ mcp: { server: 'fx', tool: 'slow' } })
    expect(text(await call(ctx, 'mcp__fx__await_event', { event: 'slow:cancelled:t' }))).toBe(
      'seen slow:cancelled:t',
    )
  })

  it('T17: with timeouts not enforced by the runtime, the SDK request timeout still answers McpTimeout', async () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    installTools(ctx, { enforceTimeouts: false })
    await setup({ servers: { fx: stdioServer(2_000) } }, { ctx })
    const result = await call(ctx, 'mcp__fx__slow', { id: 'sdk' })
    expect(result.isError && result.error.info).toEqual({ name: McpErrorNames.TIMEOUT, code: 'TIMEOUT' })
    expect(result.isError && result.error.message).toBe(
      'MCP server "fx" did not answer tool "slow" within 2000 ms.',
    )
    expect(text(await call(ctx, 'mcp__fx__await_event', { event: 'slow:cancelled:sdk' }))).toBe(
      'seen slow:cancelled:sdk',
    )
  })

  it('T13: a server that cannot start leaves the server failed with the reason; ready still resolves', async () => {
    const { ctx, mcp, logger } = await setup({
      servers: {
        gone: { transport: 'stdio', command: '/nonexistent/mcp-server', stderr: 'ignore' },
        fx: stdioServer(),
      },
    })
    const [gone, fx] = mcp.servers()
    expect(gone).toMatchObject({ name: 'gone', state: 'failed', tools: [] })
    expect(gone?.reason).toMatch(/^could not connect: .*ENOENT/)
    expect(fx?.state).toBe('connected')
    expect(ctx.tools.list().some((tool) => tool.name.startsWith('gone__'))).toBe(false)
    expect(logger.entries.some((entry) => entry.level === 'error' && entry.message.includes('"gone"'))).toBe(
      true,
    )
  })
})

describe('concurrency from annotations', () => {
  it('T23: readOnlyHint tools run in the parallel pool: both calls start before either ends', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer(20_000) } })
    const input = (id: string, waitFor: string) => ({
      callId: id,
      name: 'mcp__fx__probe',
      arguments: { id, waitFor },
    })
    expect(ctx.tools.executionMode(input('a', 'b'))).toBe('parallel')
    // Each probe waits on the server until the other has started: only overlapping calls finish.
    const results = await ctx.tools.executeBatch([input('a', 'b'), input('b', 'a')])
    expect(results.map((result) => result.isError)).toEqual([false, false])
    const order = (await events(ctx)).filter((event) => /^(start|end):[ab]$/.test(event))
    expect(order.slice(0, 2).sort()).toEqual(['start:a', 'start:b'])
    expect(order.slice(2).sort()).toEqual(['end:a', 'end:b'])
  })

  it('T22: tools without readOnlyHint are exclusive: one call ends before the next starts', async () => {
    const { ctx } = await setup({ servers: { fx: stdioServer() } })
    const input = (id: string) => ({ callId: id, name: 'mcp__fx__probe_rw', arguments: { id } })
    expect(ctx.tools.executionMode(input('c'))).toBe('exclusive')
    const results = await ctx.tools.executeBatch([input('c'), input('d')])
    expect(results.map((result) => result.isError)).toEqual([false, false])
    const order = (await events(ctx)).filter((event) => /^(start|end):[cd]$/.test(event))
    expect(order).toEqual(['start:c', 'end:c', 'start:d', 'end:d'])
  })
})

describe('dispose', () => {
  it('T13: dispose unregisters the tools, answers the call in flight with McpServerClosed, and the server process exits', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: stdioServer() } })
    const pid = Number(text(await call(ctx, 'mcp__fx__pid')))
    const pending = call(ctx, 'mcp__fx__slow', { id: 'd' })
    await call(ctx, 'mcp__fx__await_event', { event: 'slow:start:d' })
    mcp()
    expect(ctx.tools.list().filter((tool) => tool.name.startsWith('mcp__fx__'))).toEqual([])
    const result = await pending
    expect(result.isError && result.error.info).toEqual({
      name: McpErrorNames.SERVER_CLOSED,
      code: 'TOOL_FAILED',
    })
    expect(result.isError && result.error.message).toBe(
      'MCP server "fx" is not connected: the MCP plugin was disposed.',
    )
    await mcp.closed
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/)
    expect(mcp.servers()[0]?.state).toBe('closed')
  })

  it('T11: disposing the scope the tools live in closes the connection too', async () => {
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    const agent = root.createScope({ name: 'agent' })
    const { mcp } = await setup({ servers: { fx: stdioServer() } }, { ctx: agent })
    expect(agent.tools.get('mcp__fx__echo')).toBeDefined()
    expect(root.tools.get('mcp__fx__echo')).toBeUndefined()
    const pid = Number(text(await call(agent, 'mcp__fx__pid')))
    agent.dispose()
    await mcp.closed
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/)
  })
})
