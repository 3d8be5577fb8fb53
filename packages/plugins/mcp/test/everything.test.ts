import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { generateToolSdk } from '@deepseek-ai/dsh-tools'
import { afterEach, describe, expect, it } from 'vitest'
import { McpErrorNames } from '../src/index.ts'
import { everythingStdio, startEverythingHttp, type EverythingHttp, EVERYTHING } from './everything.ts'
import { call, cleanup, setup, text } from './helpers.ts'
import { startTap, type Tap, type Tapped } from './tap.ts'

let http: EverythingHttp | undefined
const oracles: Client[] = []
const taps: Tap[] = []
afterEach(async () => {
  await cleanup()
  for (const tap of taps.splice(0)) await tap.close()
  await http?.stop()
  http = undefined
  for (const client of oracles.splice(0)) await client.close()
})

/** The MCP SDK's own client on its own server-everything process: what the plugin is compared with. */
async function sdkClient(): Promise<Client> {
  const client = new Client({ name: 'oracle', version: '1.0.0' }, { capabilities: {} })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  )
  oracles.push(client)
  return client
}

describe('server-everything (the official reference server) over stdio', () => {
  it('T15: a taskSupport "required" tool is called task-augmented and answers what the SDK client gets from its task stream', async () => {
    const { ctx } = await setup({ servers: { ev: everythingStdio() } })
    const oracle = await sdkClient()
    const [ours, theirs] = await Promise.all([
      call(ctx, 'mcp__ev__simulate-research-query', { topic: 'tides' }),
      (async () => {
        let last: unknown
        const stream = oracle.experimental.tasks.callToolStream(
          { name: 'simulate-research-query', arguments: { topic: 'tides' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        )
        for await (const message of stream) last = message
        return last as { type: string; result?: { content: unknown[] } }
      })(),
    ])
    expect(theirs.type).toBe('result')
    expect(ours.isError).toBe(false)
    expect(ours.content).toEqual(theirs.result?.content)
    expect(text(ours)).toContain('# Research Report: tides')
  })

  // Two moments: before the client has the task's id (the server's answer to the task-augmented
  // tools/call is on its way: the tap reports it before passing it on), and while it polls.
  it.each([
    [
      'while the server creates the task',
      (t: Tapped) => t.dir === 's2c' && t.message.result?.task !== undefined,
    ],
    ['while the client polls tasks/get', (t: Tapped) => t.dir === 'c2s' && t.message.method === 'tasks/get'],
  ])(
    'T38: a task-augmented call aborted %s answers ABORTED, and tasks/cancel reaches the server, which cancels the task',
    async (_moment, abortAt) => {
      const tap = await startTap()
      taps.push(tap)
      const { ctx } = await setup({
        servers: { ev: { ...everythingStdio(), ...tap.wrap(process.execPath, [EVERYTHING, 'stdio']) } },
      })
      const abort = new AbortController()
      const running = call(ctx, 'mcp__ev__simulate-research-query', { topic: 'tides' }, abort.signal)
      const created = await tap.waitFor((t) => t.dir === 's2c' && t.message.result?.task !== undefined)
      const { taskId } = created.message.result!.task as { taskId: string }
      await tap.waitFor(abortAt)
      abort.abort()
      const result = await running
      expect(result.isError && result.error.info?.code).toBe('ABORTED')
      const cancel = await tap.waitFor((t) => t.dir === 'c2s' && t.message.method === 'tasks/cancel')
      expect(cancel.message.params).toEqual({ taskId })
      // the server's own answer to it: the task is cancelled on the server's side
      const answer = await tap.waitFor((t) => t.dir === 's2c' && t.message.id === cancel.message.id)
      expect(answer.message.result).toMatchObject({ taskId, status: 'cancelled' })
      // The next call on the same connection still works.
      expect(text(await call(ctx, 'mcp__ev__echo', { message: 'after' }))).toBe('Echo: after')
    },
  )

  it('T15, T35: structuredContent checked against outputSchema is the value, and the Code Mode SDK declares its type', async () => {
    const { ctx } = await setup({ servers: { ev: everythingStdio() } })
    const oracle = await sdkClient()
    const args = { location: 'Chicago' }
    const ours = await call(ctx, 'mcp__ev__get-structured-content', args)
    const theirs = await oracle.callTool({ name: 'get-structured-content', arguments: args })
    expect(ours.isError).toBe(false)
    expect(!ours.isError && ours.value).toEqual(theirs.structuredContent)
    expect(ours.content).toEqual(theirs.content)
    const listed = (await oracle.listTools()).tools.find((tool) => tool.name === 'get-structured-content')
    const tool = ctx.tools.get('mcp__ev__get-structured-content')
    expect(tool?.outputSchema).toEqual(listed?.outputSchema)
    const schema = ctx.tools.schemas().find((entry) => entry.name === 'mcp__ev__get-structured-content')!
    const sdk = generateToolSdk([{ ...schema, outputSchema: tool?.outputSchema }])
    expect(sdk).toMatch(/temperature: number/)
    expect(sdk).toMatch(/conditions: string/)
  })

  it('T15: a resource_link a tool returned is followed with <server>__read_resource; a text/plain blob reaches the model as text', async () => {
    const { ctx, mcp } = await setup({ servers: { ev: everythingStdio() } })
    expect(mcp.servers()[0]?.tools).toContainEqual({
      name: 'mcp__ev__read_resource',
      mcpName: 'read_resource',
      readOnly: true,
    })
    const oracle = await sdkClient()
    const links = await oracle.callTool({ name: 'get-resource-links', arguments: { count: 2 } })
    const uris = (links.content as { type: string; uri?: string }[]).flatMap((block) =>
      block.type === 'resource_link' && block.uri !== undefined ? [block.uri] : [],
    )
    expect(uris).toHaveLength(2)
    for (const uri of uris) {
      const ours = await call(ctx, 'mcp__ev__read_resource', { uri })
      const [theirs] = (await oracle.readResource({ uri })).contents
      const body =
        'text' in theirs! ? theirs.text : Buffer.from(String(theirs!.blob), 'base64').toString('utf8')
      expect(theirs?.mimeType).toBe('text/plain')
      // The server writes the time into each read ("created at 11:03:33 PM"), so two reads a second
      // apart differ there and nowhere else.
      const clock = /\d{1,2}:\d{2}:\d{2}\s?[AP]M/g
      expect(ours.content).toHaveLength(1)
      expect(ours.content[0]?.type).toBe('text')
      const text = (ours.content[0] as { text: string }).text
      expect(text.replace(clock, '<time>')).toBe(
        `[resource ${uri} (text/plain)]\n${body}`.replace(clock, '<time>'),
      )
      expect(ours.meta).toEqual({ mcp: { server: 'ev', tool: 'read_resource' } })
    }
    const reference = await call(ctx, 'mcp__ev__get-resource-reference', {
      resourceType: 'Blob',
      resourceId: 2,
    })
    expect(text(reference)).toContain('[resource demo://resource/dynamic/blob/2 (text/plain)]\nResource 2:')
    expect(text(reference)).not.toContain('binary data')
    const missing = await call(ctx, 'mcp__ev__read_resource', { uri: 'demo://no/such/thing' })
    expect(missing.isError && missing.error.info?.name).toBe(McpErrorNames.REQUEST_FAILED)
  })
})

describe('server-everything over Streamable HTTP on 127.0.0.1', () => {
  it('T13: a server killed mid-call and restarted: the call answers McpInterrupted, the plugin reconnects, lists again, and later calls work', async () => {
    http = await startEverythingHttp()
    const { ctx, mcp } = await setup({
      servers: {
        ev: {
          transport: 'http',
          url: http.url,
          timeoutMs: 20_000,
          reconnect: { attempts: 30, baseDelayMs: 100, maxDelayMs: 1_000 },
        },
      },
    })
    expect(text(await call(ctx, 'mcp__ev__echo', { message: 'before' }))).toBe('Echo: before')
    // the server runs the operation once it reports its first progress: kill it then
    const started = new Promise<void>((resolve) => {
      const stop = ctx.on('tools/progress', (progress) => {
        if (progress.toolName !== 'mcp__ev__trigger-long-running-operation') return
        stop()
        resolve()
      })
    })
    const running = call(ctx, 'mcp__ev__trigger-long-running-operation', { duration: 30, steps: 30 })
    await started
    await http.kill()
    const interrupted = await running
    expect(interrupted.isError && interrupted.error.info).toEqual({
      name: McpErrorNames.INTERRUPTED,
      code: 'INTERRUPTED',
    })
    await http.restart()
    await mcp.idle()
    expect(mcp.servers()[0]?.state).toBe('connected')
    expect(mcp.servers()[0]?.tools.map((tool) => tool.name)).toContain('mcp__ev__simulate-research-query')
    expect(text(await call(ctx, 'mcp__ev__echo', { message: 'after' }))).toBe('Echo: after')
  })
})
