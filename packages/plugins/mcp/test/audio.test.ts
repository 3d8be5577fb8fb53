import { realpathSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { ServerResponse } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { openJsonlSession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { call, cleanup, setup, stdioServer, text } from './helpers.ts'

// T71/T72 end to end. The audio comes from an official MCP reference server: server-filesystem's
// `read_media_file` answers an audio file as MCP audio content ({ type: 'audio', data, mimeType },
// .wav → audio/wav, .ogg → audio/ogg). (server-everything, pinned at 2026.8.31 like every version
// on npm, has no audio tool.) The MCP SDK's own client reads the same file: what the plugin is
// compared with. Then an agent turn over the OpenAI-compatible adapter against a local server on
// 127.0.0.1 that records each request body: OpenAI's host with an audio model gets `input_audio`
// (the audio guide, https://platform.openai.com/docs/guides/audio: user messages, wav or mp3),
// DeepSeek's host the stand-in.

const FILESYSTEM = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
)
const tempDir = useTempDirs('dsh-mcp-audio-')

/** A real 8 kHz mono PCM WAV: the 44-byte header and 8 samples. */
const WAV_BYTES = Buffer.concat([
  Buffer.from('RIFF', 'latin1'),
  Buffer.from([44, 0, 0, 0]),
  Buffer.from('WAVEfmt ', 'latin1'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0]),
  Buffer.from('data', 'latin1'),
  Buffer.from([8, 0, 0, 0, 128, 176, 208, 176, 128, 80, 48, 80]),
])
const OGG_BYTES = Buffer.from('OggS\u0000\u0002\u0000\u0000\u0000\u0000', 'latin1')

function mediaDir(): string {
  const dir = realpathSync(tempDir())
  writeFileSync(join(dir, 'clip.wav'), WAV_BYTES)
  writeFileSync(join(dir, 'clip.ogg'), OGG_BYTES)
  return dir
}

const filesystem = (dir: string) =>
  ({
    transport: 'stdio',
    command: process.execPath,
    args: [FILESYSTEM, dir],
    stderr: 'ignore',
    timeoutMs: 20_000,
  }) as const

const oracles: Client[] = []
const servers: ReplayServer[] = []
afterEach(async () => {
  await cleanup()
  for (const client of oracles.splice(0)) await client.close()
  for (const server of servers.splice(0)) await server.close()
})

/** What the MCP SDK's own client gets from server-filesystem for `path`. */
async function sdkRead(
  dir: string,
  path: string,
): Promise<{ type: string; data: string; mimeType: string }[]> {
  const client = new Client({ name: 'oracle', version: '1.0.0' }, { capabilities: {} })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM, dir], stderr: 'ignore' }),
  )
  oracles.push(client)
  const result = await client.callTool({ name: 'read_media_file', arguments: { path } })
  return result.content as { type: string; data: string; mimeType: string }[]
}

// ---- a chat-completions server on 127.0.0.1 that streams scripted steps and records each body

const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

const stream = (pieces: readonly string[]) => async (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  for (const piece of pieces) res.write(piece)
  res.end('data: [DONE]\n\n')
}

const callsStep = (calls: readonly { id: string; name: string; args: object }[]) =>
  stream([
    chunk({
      role: 'assistant',
      tool_calls: calls.map((c, index) => ({
        index,
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      })),
    }),
    chunk({}, 'tool_calls'),
  ])

const answerStep = (answer: string) =>
  stream([chunk({ role: 'assistant', content: answer }), chunk({}, 'stop')])

async function chatServer(): Promise<ReplayServer> {
  const server = await startReplayServer()
  servers.push(server)
  return server
}

/** The adapter as a harness on `baseUrl` builds it, its requests delivered to `server`. */
const modelAt = (server: ReplayServer, baseUrl: string, model: string) =>
  createOpenAICompatibleModel({
    baseUrl,
    model,
    apiKey: 'sk-test',
    env: {},
    fetch: (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      return globalThis.fetch(`${server.baseUrl}${url.pathname}${url.search}`, init)
    },
  })

type WireMessage = { role: string; content: unknown; tool_call_id?: string }
const messagesOf = (server: ReplayServer, i: number) => server.requests[i]!.body.messages as WireMessage[]

describe('MCP audio (T71, T72)', () => {
  it("T71: server-filesystem's audio reaches the result as an audio block, equal to what the SDK's own client gets", async () => {
    const dir = mediaDir()
    const { ctx } = await setup({ servers: { fs: filesystem(dir) } })
    for (const [file, mimeType, bytes] of [
      ['clip.wav', 'audio/wav', WAV_BYTES],
      ['clip.ogg', 'audio/ogg', OGG_BYTES],
    ] as const) {
      const path = join(dir, file)
      const [theirs] = await sdkRead(dir, path)
      expect(theirs).toEqual({ type: 'audio', data: bytes.toString('base64'), mimeType })
      const ours = await call(ctx, 'mcp__fs__read_media_file', { path })
      expect(ours.isError).toBe(false)
      expect(ours.content).toEqual([{ type: 'audio', mediaType: theirs!.mimeType, data: theirs!.data }])
    }
  })

  it('T72: an agent turn over the OpenAI-compatible adapter: OpenAI audio model → input_audio after the tool messages (wav), the stand-in for ogg; recorded and replayed from the log', async () => {
    const dir = mediaDir()
    const [theirs] = await sdkRead(dir, join(dir, 'clip.wav'))
    const { ctx } = await setup({ servers: { fs: filesystem(dir) } })
    const server = await chatServer()
    server.respond(
      callsStep([
        { id: 'call_wav', name: 'mcp__fs__read_media_file', args: { path: join(dir, 'clip.wav') } },
        { id: 'call_ogg', name: 'mcp__fs__read_media_file', args: { path: join(dir, 'clip.ogg') } },
      ]),
      answerStep('A short tone.'),
      answerStep('Still a short tone.'),
    )
    const path = join(tempDir(), 'session.jsonl')
    const session = openJsonlSession(path)
    const model = modelAt(server, 'https://api.openai.com/v1', 'gpt-4o-audio-preview')
    const agent = createAgent({ ctx, name: 'listener', model, session })
    const result = await agent.run('What do the clips in the folder sound like?')
    expect(result.reason).toBe('completed')
    expect(result.text).toBe('A short tone.')

    const input = { type: 'input_audio', input_audio: { data: theirs!.data, format: 'wav' } }
    const second = messagesOf(server, 1)
    expect(second.slice(-3)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_wav',
        content: '[audio: audio/wav, attached in the next user message]',
      },
      { role: 'tool', tool_call_id: 'call_ogg', content: '[audio (audio/ogg), 10 bytes, not shown]' },
      { role: 'user', content: [{ type: 'text', text: 'Audio returned by tool call call_wav:' }, input] },
    ])

    // recorded as any other block: the log holds the audio as the server sent it
    agent.dispose()
    session.close()
    const reopened = openJsonlSession(path)
    const results = reopened.events().filter((event) => event.type === 'tool/result')
    expect(
      results.map(
        (event) =>
          (event.data as { message: { content: { content: unknown }[] } }).message.content[0]!.content,
      ),
    ).toEqual([
      [{ type: 'audio', mediaType: 'audio/wav', data: theirs!.data }],
      [{ type: 'audio', mediaType: 'audio/ogg', data: OGG_BYTES.toString('base64') }],
    ])
    expect(verifyToolPairs(reopened.events()).ok).toBe(true)

    // replayed from the log: a new agent on the reopened session sends the audio again
    const next = createAgent({ ctx, name: 'listener', model, session: reopened })
    expect((await next.run('And now?')).text).toBe('Still a short tone.')
    const third = messagesOf(server, 2)
    expect(third).toContainEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Audio returned by tool call call_wav:' }, input],
    })
    next.dispose()
    reopened.close()
  })

  it('T72: the same turn on DeepSeek’s host (no audio input): the stand-in in each tool message, no input_audio anywhere', async () => {
    const dir = mediaDir()
    const { ctx } = await setup({ servers: { fs: filesystem(dir) } })
    const server = await chatServer()
    server.respond(
      callsStep([
        { id: 'call_wav', name: 'mcp__fs__read_media_file', args: { path: join(dir, 'clip.wav') } },
      ]),
      answerStep('I cannot hear it.'),
    )
    const session = openJsonlSession(join(tempDir(), 'session.jsonl'))
    const model = modelAt(server, 'https://api.deepseek.com', 'deepseek-flash')
    const agent = createAgent({ ctx, name: 'listener', model, session })
    expect((await agent.run('Listen to clip.wav.')).reason).toBe('completed')
    const second = messagesOf(server, 1)
    expect(second.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_wav',
      content: '[audio (audio/wav), 52 bytes, not shown]',
    })
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain('input_audio')
    agent.dispose()
    session.close()
  })

  it('T72: a sampling request with audio reaches the harness’s model as input_audio where it takes audio, else as the stand-in', async () => {
    for (const [baseUrl, modelId, expected] of [
      [
        'https://api.openai.com/v1',
        'gpt-4o-audio-preview',
        [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }],
      ],
      ['https://api.deepseek.com', 'deepseek-flash', '[audio (audio/wav), 4 bytes, not shown]'],
    ] as const) {
      const server = await chatServer()
      server.respond(answerStep('heard'))
      const { ctx } = await setup({
        servers: { fx: stdioServer(20_000) },
        sampling: { model: modelAt(server, baseUrl, modelId) },
      })
      const result = await call(ctx, 'mcp__fx__sample', { prompt: 'what is this?', maxTokens: 50, hints: [] })
      expect(result.isError, text(result)).toBe(false)
      expect(JSON.parse(text(result))).toMatchObject({ content: { type: 'text', text: 'heard' } })
      expect(messagesOf(server, 0)).toEqual([
        { role: 'user', content: 'what is this?' },
        { role: 'user', content: expected },
      ])
      await cleanup()
    }
  })
})
