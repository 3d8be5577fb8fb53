import { afterEach, describe, expect, it } from 'vitest'
import type { ToolsChange } from '@deepseek-ai/dsh-tools'
import { call, cleanup, setup, startHttpFixture, stdioServer, text, type HttpFixture } from './helpers.ts'

let http: HttpFixture | undefined
afterEach(async () => {
  await cleanup()
  await http?.stop()
  http = undefined
})

const transports = {
  stdio: async () => stdioServer(),
  http: async () => {
    http = await startHttpFixture()
    return { transport: 'http', url: http.url } as const
  },
}

describe.each(Object.keys(transports) as (keyof typeof transports)[])('list_changed over %s', (transport) => {
  it('T24: a tool the server adds is registered, a changed one is registered again, a removed one is gone', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: await transports[transport]() } })
    const changes: ToolsChange[] = []
    ctx.on('tools/change', (change) => {
      changes.push(change)
    })
    expect(ctx.tools.get('mcp__fx__dyn_a')).toBeUndefined()

    await call(ctx, 'mcp__fx__mutate', { add: ['dyn_a', 'dyn_b'] })
    await mcp.idle()
    expect(text(await call(ctx, 'mcp__fx__dyn_a'))).toBe('dynamic dyn_a')
    expect(ctx.tools.get('mcp__fx__dyn_b')?.description).toBe('dynamic dyn_b')
    const echo = ctx.tools.get('mcp__fx__echo')

    await call(ctx, 'mcp__fx__mutate', { describe: ['dyn_a'] })
    await mcp.idle()
    expect(ctx.tools.get('mcp__fx__dyn_a')?.description).toBe('dynamic dyn_a (changed)')
    expect(ctx.tools.get('mcp__fx__dyn_a')?.parameters).toEqual({
      type: 'object',
      properties: { extra: { type: 'number' } },
      required: ['extra'],
    })
    // Unchanged tools are left alone: the same definition object, never re-registered.
    expect(ctx.tools.get('mcp__fx__echo')).toBe(echo)

    await call(ctx, 'mcp__fx__mutate', { remove: ['dyn_b'] })
    await mcp.idle()
    expect(ctx.tools.get('mcp__fx__dyn_b')).toBeUndefined()
    const gone = await call(ctx, 'mcp__fx__dyn_b')
    expect(gone.isError && gone.error.info?.code).toBe('UNKNOWN_TOOL')
    expect(mcp.servers()[0]?.tools.map((tool) => tool.mcpName)).toContain('dyn_a')

    const touched = (reason: ToolsChange['reason']) =>
      changes.filter((change) => change.reason === reason).flatMap((change) => change.names)
    expect(touched('register')).toEqual(['mcp__fx__dyn_a', 'mcp__fx__dyn_b', 'mcp__fx__dyn_a'])
    expect(touched('unregister')).toEqual(['mcp__fx__dyn_a', 'mcp__fx__dyn_b'])
  })

  it('T13: a call in flight when its tool is removed still gets its one result', async () => {
    const { ctx, mcp } = await setup({ servers: { fx: await transports[transport]() } })
    const pending = call(ctx, 'mcp__fx__slow', { id: 'r' })
    await call(ctx, 'mcp__fx__await_event', { event: 'slow:start:r' })
    await call(ctx, 'mcp__fx__mutate', { remove: ['slow'] })
    await mcp.idle()
    expect(ctx.tools.get('mcp__fx__slow')).toBeUndefined()
    await call(ctx, 'mcp__fx__release', { id: 'r' })
    expect(await pending).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'slow r released' }],
      meta: { mcp: { server: 'fx', tool: 'slow' } },
    })
  })
})
