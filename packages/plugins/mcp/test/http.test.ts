import { afterEach, describe, expect, it } from 'vitest'
import { McpErrorNames } from '../src/index.ts'
import { call, cleanup, events, setup, startHttpFixture, text, type HttpFixture } from './helpers.ts'

let http: HttpFixture | undefined
afterEach(async () => {
  await cleanup()
  await http?.stop()
  http = undefined
})

async function httpSetup(timeoutMs?: number) {
  http = await startHttpFixture()
  const server = {
    transport: 'http',
    url: http.url,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  } as const
  return { ...(await setup({ servers: { web: server } })), fixture: http }
}

const closed = { name: McpErrorNames.SERVER_CLOSED, code: 'TOOL_FAILED' }

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

  it('T13: an HTTP server that dies mid-call: the call, and every later one, get McpServerClosed without hanging', async () => {
    const { ctx, mcp } = await httpSetup()
    const result = await call(ctx, 'mcp__web__crash')
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
    expect(mcp.servers()[0]?.reason).toMatch(/^it stopped answering/)
    const later = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(later.isError && later.error.info).toEqual(closed)
  })

  it('T13: an HTTP server that went away while idle: the next call finds out and answers McpServerClosed', async () => {
    const { ctx, mcp, fixture } = await httpSetup()
    await fixture.stop()
    const result = await call(ctx, 'mcp__web__echo', { text: 'hello?' })
    expect(result.isError && result.error.info).toEqual(closed)
    expect(mcp.servers()[0]?.state).toBe('closed')
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
