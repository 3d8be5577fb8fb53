import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createContext } from '@deepseek-ai/dsh-context'
import { installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { mcpTools } from '@deepseek-ai/dsh-mcp'
import { loadClaudeSettings, permissions } from '@deepseek-ai/dsh-permissions'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

// The MCP plugin names an imported tool as Claude Code does, mcp__<server>__<tool>, so a Claude
// Code rule about it means the same here. An in-process MCP server (the SDK's own server, over
// streamable HTTP on 127.0.0.1) records every call it receives: a denied call must never reach it.

const tempDir = useTempDirs('dsh-mcp-names-')
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

async function startVault(): Promise<{ readonly url: string; readonly received: string[] }> {
  const received: string[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const mcpServer = (): Server => {
    const server = new Server({ name: 'vault', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: ['read_secret', 'list_keys', 'get.meta'].map((name) => ({
        name,
        description: name,
        inputSchema: { type: 'object', properties: {} },
      })),
    }))
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      received.push(request.params.name)
      return { content: [{ type: 'text', text: `ran ${request.params.name}` }] }
    })
    return server
  }
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id']
      let transport = typeof id === 'string' ? sessions.get(id) : undefined
      if (transport === undefined) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
          onsessionclosed: (sessionId) => void sessions.delete(sessionId),
        })
        transport = created
        await mcpServer().connect(created)
      }
      await transport.handleRequest(req, res)
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error))
    })
  })
  http.listen(0, '127.0.0.1')
  await once(http, 'listening')
  stops.push(async () => {
    http.closeAllConnections()
    http.close()
    await once(http, 'close')
  })
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, received }
}

// A real bash (or MCP server) per test: the limit only keeps a hang from stalling the run.
describe('the MCP plugin and Claude Code rules name the same tools', { timeout: 60_000 }, () => {
  it('P12: a Claude Code deny on mcp__vault__read_secret stops the call before the MCP server sees it', async () => {
    const vault = await startVault()
    const dir = tempDir()
    mkdirSync(join(dir, '.claude'))
    writeFileSync(
      join(dir, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['mcp__vault__read_secret'], allow: ['mcp__vault'] } }),
    )
    const settings = await loadClaudeSettings(dir)
    const ctx = createContext()
    installTools(ctx)
    const mcp = mcpTools(ctx, { servers: { vault: { transport: 'http', url: vault.url } } })
    stops.push(async () => {
      mcp()
      await mcp.closed
    })
    await mcp.ready
    permissions(ctx, { workspaceRoot: dir, layers: { project: settings.rules } })
    expect(
      ctx.tools
        .schemas()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['mcp__vault__get_meta', 'mcp__vault__list_keys', 'mcp__vault__read_secret'])
    let id = 0
    const call = (name: string): Promise<ToolExecutionResult> =>
      ctx.tools.execute({ callId: `c${++id}`, name, arguments: '{}' })
    const denied = await call('mcp__vault__read_secret')
    expect(denied.isError && denied.error.info).toMatchObject({ code: 'DENIED', name: 'PolicyDenied' })
    expect(denied.isError && denied.error.message).toContain('mcp__vault__read_secret')
    expect(vault.received).toEqual([])
    // `mcp__vault` allows the server's other tools, whose MCP names are untouched.
    const allowed = await call('mcp__vault__list_keys')
    expect(allowed.isError).toBe(false)
    expect(await call('mcp__vault__get_meta')).toMatchObject({ isError: false })
    expect(vault.received).toEqual(['list_keys', 'get.meta'])
  })

  it('P12: mcp__vault (the whole server) and mcp__vault__* deny every tool of it and no other', async () => {
    const vault = await startVault()
    for (const rule of ['mcp__vault', 'mcp__vault__*']) {
      const ctx = createContext()
      installTools(ctx)
      const mcp = mcpTools(ctx, { servers: { vault: { transport: 'http', url: vault.url } } })
      stops.push(async () => {
        mcp()
        await mcp.closed
      })
      await mcp.ready
      permissions(ctx, {
        workspaceRoot: '/repo',
        defaultDecision: 'allow',
        layers: { deployment: [{ decision: 'deny', rule }] },
      })
      for (const name of ['mcp__vault__read_secret', 'mcp__vault__list_keys']) {
        const result = await ctx.tools.execute({ callId: `${rule}-${name}`, name, arguments: '{}' })
        expect([rule, name, result.isError && result.error.info?.code]).toEqual([rule, name, 'DENIED'])
      }
    }
    expect(vault.received).toEqual([])
  })
})
