import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js'
import { createScriptedModel } from '@deepseek-ai/dsh-llm'
import { afterEach, describe, expect, it } from 'vitest'
import type { McpElicitationRequest, McpSamplingRequest } from '../src/index.ts'
import { EVERYTHING, everythingStdio } from './everything.ts'
import { call, cleanup, setup, text } from './helpers.ts'
import { startTap, type Tap } from './tap.ts'

const oracles: Client[] = []
const taps: Tap[] = []
afterEach(async () => {
  await cleanup()
  for (const tap of taps.splice(0)) await tap.close()
  for (const client of oracles.splice(0)) await client.close()
})

/** The MCP SDK's own client, with `capabilities`, on its own server-everything process. */
async function sdkClient(
  capabilities: ClientCapabilities,
  handlers: (client: Client) => void = () => {},
): Promise<Client> {
  const client = new Client({ name: 'oracle', version: '1.0.0' }, { capabilities })
  handlers(client)
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  )
  oracles.push(client)
  return client
}

const joined = (content: unknown): string =>
  (content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('\n')

/** server-everything's trigger-elicitation-request form, answered the same way by both clients. */
const FORM = { name: 'Ada Lovelace', check: true, integer: 7, untitledMultipleSelectEnum: ['Piano'] }

describe('client capabilities (T65), against server-everything over stdio', () => {
  it('T65: only what the harness configured is declared, and server-everything lists its conditional tools accordingly', async () => {
    const tap = await startTap()
    taps.push(tap)
    const wrapped = tap.wrap(process.execPath, [EVERYTHING, 'stdio'])
    const bare = await setup({ servers: { ev: everythingStdio() } })
    const names = (await bare.mcp.ready)[0]!.tools.map((tool) => tool.mcpName)
    expect(names).not.toContain('trigger-elicitation-request')
    expect(names).not.toContain('trigger-sampling-request')
    expect(names).not.toContain('get-roots-list')
    const full = await setup({
      servers: { ev: { ...everythingStdio(), ...wrapped } },
      elicitation: { handler: () => ({ action: 'decline' }) },
      sampling: { model: createScriptedModel({ turns: [] }) },
      roots: [process.cwd()],
    })
    const initialize = await tap.waitFor((t) => t.dir === 'c2s' && t.message.method === 'initialize')
    expect(initialize.message.params?.capabilities).toEqual({
      elicitation: { form: {} },
      sampling: {},
      roots: { listChanged: true },
    })
    const listed = full.mcp.servers()[0]!.tools.map((tool) => tool.mcpName)
    expect(listed).toEqual(
      expect.arrayContaining(['trigger-elicitation-request', 'trigger-sampling-request', 'get-roots-list']),
    )
    // URL mode only when asked for
    expect(listed).not.toContain('trigger-url-elicitation')
  })

  it('T65: an elicitation reaches the handler with the call it belongs to, and the tool answers what the SDK client gets for the same answer', async () => {
    const asked: McpElicitationRequest[] = []
    const { ctx } = await setup({
      servers: { ev: everythingStdio() },
      elicitation: {
        handler: (request) => {
          asked.push(request)
          return { action: 'accept', content: FORM }
        },
      },
    })
    const seen: unknown[] = []
    const oracle = await sdkClient({ elicitation: { form: {} } }, (client) =>
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        seen.push(request.params)
        return { action: 'accept', content: FORM }
      }),
    )
    const ours = await call(ctx, 'mcp__ev__trigger-elicitation-request')
    const theirs = await oracle.callTool({ name: 'trigger-elicitation-request', arguments: {} })
    expect(ours.isError).toBe(false)
    expect(ours.content).toEqual(theirs.content)
    expect(text(ours)).toContain('- Name: Ada Lovelace')
    expect(asked).toHaveLength(1)
    const [request] = asked
    expect(request?.call?.toolName).toBe('mcp__ev__trigger-elicitation-request')
    expect(request?.call?.callId).toMatch(/^call-\d+$/)
    expect(request?.mode).toBe('form')
    const [params] = seen as { message: string; requestedSchema: unknown }[]
    expect(request?.message).toBe(params?.message)
    expect(request?.requestedSchema).toEqual(params?.requestedSchema)
  })

  it('T65: URL mode when asked for: the handler gets the URL and the flow id, and the tool answers as the SDK client’s', async () => {
    const asked: McpElicitationRequest[] = []
    const { ctx, mcp } = await setup({
      servers: { ev: everythingStdio() },
      elicitation: {
        url: true,
        handler: (request) => {
          asked.push(request)
          return { action: 'accept' }
        },
      },
    })
    expect(mcp.servers()[0]!.tools.map((tool) => tool.mcpName)).toContain('trigger-url-elicitation')
    const oracle = await sdkClient({ elicitation: { form: {}, url: {} } }, (client) =>
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept' })),
    )
    const args = { url: 'https://example.com/consent', elicitationId: 'flow-1' }
    const ours = await call(ctx, 'mcp__ev__trigger-url-elicitation', args)
    const theirs = await oracle.callTool({ name: 'trigger-url-elicitation', arguments: args })
    expect(ours.isError).toBe(false)
    expect(ours.content).toEqual(theirs.content)
    expect(asked[0]).toMatchObject({ mode: 'url', url: args.url, elicitationId: 'flow-1' })
    expect(asked[0]?.requestedSchema).toBeUndefined()
  })

  it('T65: an answer that breaks the requested schema is refused: the server gets an error, the harness a warning', async () => {
    const { ctx, logger } = await setup({
      servers: { ev: everythingStdio() },
      // integer is 1..100 in the server's form, and name is required
      elicitation: { handler: () => ({ action: 'accept', content: { integer: 500 } }) },
    })
    const result = await call(ctx, 'mcp__ev__trigger-elicitation-request')
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/does not match the requested schema: .*\$\.name is required/)
    expect(text(result)).toMatch(/\$\.integer must be <= 100/)
    expect(
      logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes('elicitation')),
    ).toBe(true)
  })

  it('T67: sampling goes to the configured model under the policy: one request denied, one allowed and capped, each as the SDK client answers it', async () => {
    const model = createScriptedModel({
      provider: 'scripted',
      modelId: 'scripted-1',
      turns: [[{ type: 'text', text: 'Tides follow the moon.' }]],
    })
    const policed: McpSamplingRequest[] = []
    const { ctx } = await setup({
      servers: { ev: everythingStdio() },
      sampling: {
        model,
        maxTokens: 50,
        policy: (request) => {
          policed.push(request)
          const [first] = request.messages as { content: { text: string } }[]
          return first?.content.text.includes('secret')
            ? { type: 'deny', reason: 'no secrets' }
            : { type: 'allow' }
        },
      },
    })
    const oracle = await sdkClient({ sampling: {} }, (client) =>
      client.setRequestHandler(CreateMessageRequestSchema, (request) => {
        const [first] = request.params.messages as { content: { text: string } }[]
        if (first?.content.text.includes('secret'))
          throw new McpError(-1, 'Sampling request denied: no secrets')
        return {
          role: 'assistant',
          content: { type: 'text', text: 'Tides follow the moon.' },
          model: 'scripted-1',
          stopReason: 'endTurn',
        }
      }),
    )
    const denied = { prompt: 'tell me the secret', maxTokens: 100 }
    const allowed = { prompt: 'why tides?', maxTokens: 100 }
    const oursDenied = await call(ctx, 'mcp__ev__trigger-sampling-request', denied)
    const theirsDenied = await oracle.callTool({ name: 'trigger-sampling-request', arguments: denied })
    expect(oursDenied.isError).toBe(true)
    expect(text(oursDenied)).toBe(joined(theirsDenied.content))
    expect(text(oursDenied)).toContain('Sampling request denied: no secrets')
    const oursAllowed = await call(ctx, 'mcp__ev__trigger-sampling-request', allowed)
    const theirsAllowed = await oracle.callTool({ name: 'trigger-sampling-request', arguments: allowed })
    expect(oursAllowed.isError).toBe(false)
    expect(oursAllowed.content).toEqual(theirsAllowed.content)
    // the denied request never reached the model; the allowed one did, capped at 50 tokens
    expect(model.requests).toHaveLength(1)
    expect(model.requests[0]?.system).toBe('You are a helpful test server.')
    expect(model.requests[0]?.providerOptions).toEqual({ scripted: { max_tokens: 50, temperature: 0.7 } })
    expect(policed.map((request) => request.maxTokens)).toEqual([50, 50])
    expect(policed.every((request) => request.call?.toolName === 'mcp__ev__trigger-sampling-request')).toBe(
      true,
    )
  })

  it('T68: roots come from the config; setRoots sends roots/list_changed, the server asks again and lists the new roots, as the SDK client’s', async () => {
    const first = mkdtempSync(join(tmpdir(), 'dsh-mcp-root-a-'))
    const second = mkdtempSync(join(tmpdir(), 'dsh-mcp-root-b-'))
    const tap = await startTap()
    taps.push(tap)
    const { ctx, mcp } = await setup({
      servers: { ev: { ...everythingStdio(), ...tap.wrap(process.execPath, [EVERYTHING, 'stdio']) } },
      roots: [first],
    })
    const oracleRoots = [{ uri: pathToFileURL(first).href }]
    const oracle = await sdkClient({ roots: { listChanged: true } }, (client) =>
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: oracleRoots })),
    )
    const before = await call(ctx, 'mcp__ev__get-roots-list')
    const theirs = await oracle.callTool({ name: 'get-roots-list', arguments: {} })
    expect(text(before)).toBe(joined(theirs.content))
    expect(text(before)).toContain(`URI: ${pathToFileURL(first).href}`)

    mcp.setRoots([second, { uri: pathToFileURL(first).href, name: 'first' }])
    await tap.waitFor((t) => t.dir === 'c2s' && t.message.method === 'notifications/roots/list_changed')
    // the server asks again, and says so once it has stored the answer
    await tap.waitFor(
      (t) =>
        t.dir === 's2c' &&
        t.message.method === 'notifications/message' &&
        String(t.message.params?.data).includes('Roots updated: 2 root(s)'),
    )
    const after = await call(ctx, 'mcp__ev__get-roots-list')
    expect(text(after)).toContain('Current MCP Roots (2 total)')
    expect(text(after)).toContain(`1. Unnamed Root\n   URI: ${pathToFileURL(second).href}`)
    expect(text(after)).toContain(`2. first\n   URI: ${pathToFileURL(first).href}`)
    expect(() => mcp.setRoots(['relative/dir'])).toThrow(
      /roots\[0\]: a root is an absolute path or a file: URI/,
    )
  })
})
