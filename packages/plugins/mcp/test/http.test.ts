import { afterEach, describe, expect, it } from 'vitest'
import { createContext } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { McpErrorNames, mcpTools } from '../src/index.ts'
import { call, cleanup, events, setup, startHttpFixture, text, type HttpFixture } from './helpers.ts'

let http: HttpFixture | undefined
afterEach(async () => {
  await cleanup()
  await http?.stop()
  http = undefined
})

async function httpSetup(timeoutMs?: number, options: { readonly reconnect?: false } = {}) {
  http = await startHttpFixture()
  const server = {
    transport: 'http',
    url: http.url,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...options,
  } as const
  return { ...(await setup({ servers: { web: server } })), fixture: http }
}

const closed = { name: McpErrorNames.SERVER_CLOSED, code: 'TOOL_FAILED' }

async function setup3Attempts() {
  http = await startHttpFixture()
  const server = {
    transport: 'http',
    url: http.url,
    reconnect: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
  } as const
  return { ...(await setup({ servers: { web: server } })), fixture: http }
}

describe('streamable HTTP on 127.0.0.1', () => {
  it('T15: registers the tools and maps results, isError included', async () => {
    const { ctx, mcp } = await httpSetup()
    expect(mcp.servers()[0]).toMatchObject({ name: 'web', transport: 'http', state: 'connected' })
    expect(await call(ctx, 'mcp__web__echo', { text: 'over http' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'over http' }],
      meta: { mcp: { server: 'web', tool: 'echo' } },
    })
    const failed = await call(ctx, 'mcp__web__fail')
    expect(failed.isError && failed.error).toEqual({
      message: 'it broke',
      info: { name: McpErrorNames.TOOL_ERROR, code: 'TOOL_FAILED' },
    })
    expect(
      mcp
        .servers()[0]
        ?.skipped.map((skip) => skip.tool)
        .sort(),
    ).toEqual(['bad_schema', 'files_read', 'not_object'])
  })

  it('T38: an abort reaches the HTTP server as a cancellation', async () => {
    const { ctx } = await httpSetup()
    const controller = new AbortController()
    const pending = call(ctx, 'mcp__web__slow', { id: 'h' }, controller.signal)
    await call(ctx, 'mcp__web__await_event', { event: 'slow:start:h' })
    controller.abort()
    const result = await pending
    expect(result.isError && result.error.info?.code).toBe('ABORTED')
    expect(text(await call(ctx, 'mcp__web__await_event', { event: 'slow:cancelled:h' }))).toBe(
      'seen slow:cancelled:h',
    )
    expect(await events(ctx, 'web')).not.toContain('slow:released:h')
  })

  it('T13: with reconnect: false, an HTTP server that dies mid-call: the call, and every later one, get McpServerClosed without hanging', async () => {
    const { ctx, mcp } = await httpSetup(undefined, { reconnect: false })
    const result = await call(ctx, 'mcp__web__crash')
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
    expect(mcp.servers()[0]?.reason).toMatch(/^it stopped answering/)
    const later = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(later.isError && later.error.info).toEqual(closed)
  })

  it('T13: with reconnect: false, an HTTP server that went away while idle: the next call finds out and answers McpServerClosed', async () => {
    const { ctx, mcp, fixture } = await httpSetup(undefined, { reconnect: false })
    await fixture.stop()
    const result = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
  })

  it('T13: a call that finds its connection gone only after the plugin has reconnected answers McpInterrupted: its task may be running', async () => {
    const { ctx, mcp, fixture } = await httpSetup()
    // A task-augmented call: the server created the task and asked to be polled in a minute (the
    // client polls after at most 5 s), so the call holds the old connection without a request.
    const running = call(ctx, 'mcp__web__task_wait')
    await call(ctx, 'mcp__web__await_event', { event: 'task:created' })
    // The server forgets its sessions (as a restart would); the next call finds out, the plugin
    // reconnects and sends that call again.
    await fetch(new URL('/forget-sessions', fixture.url), { method: 'POST' })
    expect(text(await call(ctx, 'mcp__web__echo', { text: 'again' }))).toBe('again')
    await mcp.idle()
    expect(mcp.servers()[0]?.state).toBe('connected')
    // The waiting call polls on the connection that was replaced: it cannot know what became of
    // its task on the server.
    const result = await running
    expect(result.isError && result.error.info).toEqual({
      name: McpErrorNames.INTERRUPTED,
      code: 'INTERRUPTED',
    })
    expect((await fixture.events()).filter((event) => event.startsWith('tasks/get'))).toEqual([])
  })

  it('T13: a lost HTTP server is given reconnect.attempts attempts, then closed', async () => {
    const { ctx, mcp, fixture } = await setup3Attempts()
    // The server refuses every session from now on (404), the handshakes of reconnecting included.
    await fetch(new URL('/hold/refuse', fixture.url), { method: 'POST' })
    const result = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
    expect(mcp.servers()[0]?.reason).toMatch(/3 reconnect attempts failed/)
    const refused = (await fixture.events()).filter((event) => event.startsWith('refused:'))
    expect(refused.filter((event) => event === 'refused:initialize')).toHaveLength(3)
    expect(refused[0]).toBe('refused:tools/call')
  })

  it('T13: with reconnect: false, a server found gone is closed at once: its session is ended, not left to dispose', async () => {
    const { ctx, mcp, fixture } = await httpSetup(undefined, { reconnect: false })
    await fetch(new URL('/hold/refuse', fixture.url), { method: 'POST' })
    const result = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
    // The plugin closes the client now: it ends its session (the server, refusing all, records it).
    const ended = fetch(new URL(`/await/${encodeURIComponent('refused:DELETE')}`, fixture.url)).then(
      () => true,
    )
    const waited = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref())
    expect(await Promise.race([ended, waited])).toBe(true)
  })

  it('T11: a handshake that completes after dispose leaves the server closed, with no tools and its session ended', async () => {
    http = await startHttpFixture()
    const fixture = http
    const post = (path: string) => fetch(new URL(path, fixture.url), { method: 'POST' })
    const seen = (event: string) => fetch(new URL(`/await/${encodeURIComponent(event)}`, fixture.url))
    await post('/hold/initialized')
    await post('/hold/delete')
    const ctx = createContext()
    installTools(ctx)
    const mcp = mcpTools(ctx, { servers: { web: { transport: 'http', url: fixture.url } } })
    await seen('held:initialized')
    mcp()
    // Dispose ends the session (held), then the handshake's last step completes.
    await seen('held:delete')
    await post('/release/initialized')
    const [status] = await mcp.ready
    expect(status?.state).toBe('closed')
    await post('/release/delete')
    await mcp.closed
    expect(mcp.servers()[0]?.state).toBe('closed')
    expect(ctx.tools.list()).toEqual([])
    expect(await fixture.events()).toContain('session:closed')
  })

  it('T15: an authProvider is passed to the SDK transport: its token is sent as the bearer', async () => {
    http = await startHttpFixture()
    const authProvider = {
      redirectUrl: 'http://127.0.0.1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] },
      clientInformation: () => ({ client_id: 'dsh' }),
      tokens: () => ({ access_token: 'token-42', token_type: 'Bearer' }),
      saveTokens: () => {},
      redirectToAuthorization: () => {},
      saveCodeVerifier: () => {},
      codeVerifier: () => 'verifier',
    }
    const { ctx } = await setup({ servers: { web: { transport: 'http', url: http.url, authProvider } } })
    expect(await events(ctx, 'web')).toContain('authorization:Bearer token-42')
  })

  it("T15: structuredContent is checked against the tool's outputSchema, as the SDK client checks it", async () => {
    const { ctx } = await httpSetup()
    const good = await call(ctx, 'mcp__web__typed', { send: 'good' })
    expect(!good.isError && good.value).toEqual({ total: 3, unit: 'kg' })
    for (const send of ['wrong_type', 'none']) {
      const bad = await call(ctx, 'mcp__web__typed', { send })
      expect(bad.isError && bad.error.info?.code).toBe('INVALID_TOOL_OUTPUT')
      expect(bad.isError && bad.error.message).toMatch(/structuredContent/)
    }
    // (The SDK's own client cannot be the oracle here: its strict tools/list refuses this fixture's
    // deliberately broken listing. Against server-everything it is, in everything.test.ts.)
  })

  it('T11: dispose ends the HTTP session on the server', async () => {
    const { ctx, mcp, fixture } = await httpSetup()
    expect(text(await call(ctx, 'mcp__web__echo', { text: 'x' }))).toBe('x')
    expect(await fixture.events()).toContain('session:open')
    mcp()
    await mcp.closed
    expect(await fixture.events()).toContain('session:closed')
    expect(ctx.tools.list()).toEqual([])
  })

  it('T13: an HTTP server that is not there leaves the server failed; ready still resolves', async () => {
    const fixture = await startHttpFixture()
    await fixture.stop()
    const { mcp } = await setup({ servers: { web: { transport: 'http', url: fixture.url } } })
    expect(mcp.servers()[0]).toMatchObject({ state: 'failed', tools: [] })
    expect(mcp.servers()[0]?.reason).toMatch(/^could not connect: /)
  })
})
