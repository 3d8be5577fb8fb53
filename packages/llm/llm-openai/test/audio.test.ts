import type OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  assistantMessage,
  audioBlock,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  userMessage,
  type Message,
} from '@deepseek-ai/dsh-llm'
import {
  ChatCompletionsError,
  createOpenAICompatibleModel,
  toWireMessages,
  type OpenAICompatibleModelOptions,
  type WireMessage,
  type WireUserPart,
} from '@deepseek-ai/dsh-llm-openai'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { textChunks } from './support/fixtures.ts'
import { sse, sseText } from './support/sse.ts'

// T72 over chat completions. The wire format is OpenAI's API reference, as its own npm package
// types it (openai 6.x, `ChatCompletionContentPartInputAudio`: `{ type: 'input_audio', input_audio:
// { data, format: 'wav' | 'mp3' } }`, a user-message part; `ChatCompletionToolMessageParam.content`:
// `string | ChatCompletionContentPartText[]`, text only) and the audio guide
// https://platform.openai.com/docs/guides/audio (base64 data, wav or mp3, audio models only).

// Compile-time oracle: every part the adapter writes is a part OpenAI's client types accept, and
// a tool message is OpenAI's tool message (text content). `pnpm typecheck` checks these lines.
type Part = OpenAI.Chat.Completions.ChatCompletionContentPart
const asOpenAiPart = (part: WireUserPart): Part => {
  switch (part.type) {
    case 'text':
      return { ...part }
    case 'image_url':
      return { type: part.type, image_url: { ...part.image_url } }
    case 'input_audio':
      return { type: part.type, input_audio: { ...part.input_audio } }
  }
}
const asOpenAiTool = (
  message: Extract<WireMessage, { role: 'tool' }>,
): OpenAI.Chat.Completions.ChatCompletionToolMessageParam => ({ ...message })

/** A real WAV (44-byte header, 4 samples) and a few bytes of each other kind. */
const WAV = Buffer.concat([
  Buffer.from('RIFF', 'latin1'),
  Buffer.from([40, 0, 0, 0]),
  Buffer.from('WAVEfmt ', 'latin1'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0]),
  Buffer.from('data', 'latin1'),
  Buffer.from([4, 0, 0, 0, 128, 160, 128, 96]),
]).toString('base64')
const MP3 = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]).toString('base64')
const OGG = Buffer.from('OggS\u0000\u0002', 'latin1').toString('base64')

const wav = audioBlock({ mediaType: 'audio/wav', data: WAV })
const mp3 = audioBlock({ mediaType: 'audio/mpeg', data: MP3 })
const ogg = audioBlock({ mediaType: 'audio/ogg', data: OGG })

/** A history where a tool answers with text, an image and audio of three formats. */
const history: Message[] = [
  userMessage([textBlock('What do these say?'), wav, ogg]),
  assistantMessage([
    toolCallBlock({ id: 'c1', name: 'record', args: {} }),
    toolCallBlock({ id: 'c2', name: 'record', args: {} }),
  ]),
  createToolResultMessage({ callId: 'c1', content: [textBlock('two clips:'), mp3, ogg], isError: false }),
  createToolResultMessage({
    callId: 'c2',
    content: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0K' }, wav],
    isError: false,
  }),
  assistantMessage([textBlock('Heard them.')]),
]

describe('audio over chat completions (T72)', () => {
  it("T72: audioInput 'input_audio': a user message's wav/mp3 audio is an input_audio part in place; other formats are the stand-in", () => {
    const wire = toWireMessages(undefined, history, { reasoningReplay: 'never', audioInput: 'input_audio' })
    expect(wire[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What do these say?' },
        { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
        { type: 'text', text: '[audio (audio/ogg), 6 bytes, not shown]' },
      ],
    })
    for (const part of wire[0]!.content as WireUserPart[]) expect(asOpenAiPart(part)).toEqual(part)
  })

  it("T72: a tool result's audio is named in the tool message (text only) and sent in the user message after the step's tool messages", () => {
    const wire = toWireMessages(undefined, history, {
      reasoningReplay: 'never',
      audioInput: 'input_audio',
      toolResultImages: 'user-message',
    })
    expect(wire.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'assistant'])
    expect(wire[2]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content:
        'two clips:\n\n[audio: audio/mpeg, attached in the next user message]\n\n[audio (audio/ogg), 6 bytes, not shown]',
    })
    expect(wire[3]).toEqual({
      role: 'tool',
      tool_call_id: 'c2',
      content:
        '[image: image/png, attached in the next user message]\n\n[audio: audio/wav, attached in the next user message]',
    })
    for (const tool of [wire[2], wire[3]]) expect(asOpenAiTool(tool as never)).toEqual(tool)
    expect(wire[4]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Audio returned by tool call c1:' },
        { type: 'input_audio', input_audio: { data: MP3, format: 'mp3' } },
        { type: 'text', text: 'Image(s) and audio returned by tool call c2:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
        { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
      ],
    })
  })

  it("T72: audioInput 'text' (and toWireMessages' default): every audio block is its stand-in, nothing dropped", () => {
    for (const options of [
      { reasoningReplay: 'never' as const, audioInput: 'text' as const },
      'never' as const,
    ]) {
      const wire = toWireMessages(undefined, history, options)
      expect(wire[0]).toEqual({
        role: 'user',
        content:
          'What do these say?\n\n[audio (audio/wav), 48 bytes, not shown]\n\n[audio (audio/ogg), 6 bytes, not shown]',
      })
      expect(wire[2]).toMatchObject({
        content:
          'two clips:\n\n[audio (audio/mpeg), 8 bytes, not shown]\n\n[audio (audio/ogg), 6 bytes, not shown]',
      })
      expect(JSON.stringify(wire)).not.toContain('input_audio')
    }
  })

  it('T72: an audio block that is not audio is INVALID_REQUEST naming its place, never sent', () => {
    const bad = [
      userMessage('x'),
      { role: 'user', content: [{ type: 'audio', mediaType: 'audio/wav', data: 'no!' }] },
    ]
    let error: unknown
    try {
      toWireMessages(undefined, bad as Message[], { reasoningReplay: 'never', audioInput: 'input_audio' })
    } catch (caught) {
      error = caught
    }
    expect(ChatCompletionsError.isInstance(error) && error.code).toBe('INVALID_REQUEST')
    expect((error as Error).message).toBe(
      'request.messages[1].content[0]: an audio block\'s data must be base64: character 2 is "!"',
    )
  })
})

describe('audio per host (T72): what the request body holds', () => {
  let server: ReplayServer
  beforeEach(async () => {
    server = await startReplayServer()
  })
  afterEach(async () => {
    await server.close()
  })

  /** One request to `baseUrl` (delivered to the replay server, path kept); the body it sent. */
  async function bodyFor(baseUrl: string, model: string, options: OpenAICompatibleModelOptions = {}) {
    server.respond(sse(sseText(textChunks)))
    const adapter = createOpenAICompatibleModel({
      baseUrl,
      model,
      apiKey: 'sk-test',
      env: {},
      fetch: (input, init) => {
        const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
        return globalThis.fetch(`${server.baseUrl}${url.pathname}${url.search}`, init)
      },
      ...options,
    })
    await adapter.step({ messages: history, tools: [] })
    return JSON.stringify(server.requests.at(-1)!.body)
  }

  const AZURE = 'https://r.openai.azure.com/openai/deployments/d?api-version=2025-01-01-preview'
  it.each([
    ['https://api.openai.com/v1', 'gpt-4o-audio-preview', true],
    ['https://api.openai.com/v1', 'gpt-audio-mini', true],
    ['https://api.openai.com/v1', 'gpt-4.1', false],
    [AZURE, 'gpt-4o-mini-audio-preview', true],
    [AZURE, 'gpt-4o', false],
    ['https://api.deepseek.com', 'deepseek-flash', false],
    ['https://api.mistral.ai/v1', 'voxtral-small-latest', false],
    ['https://api.groq.com/openai/v1', 'whisper-audio', false],
    ['http://127.0.0.1:8000/v1', 'gpt-4o-audio-preview', false],
  ])('T72: %s with %s: input_audio %s, else the stand-in', async (baseUrl, model, takesAudio) => {
    const body = await bodyFor(baseUrl, model)
    expect(body.includes('"input_audio"')).toBe(takesAudio)
    expect(body.includes('[audio (audio/wav), 48 bytes, not shown]')).toBe(!takesAudio)
    // never in a tool message: OpenAI refuses non-text parts there
    const messages = JSON.parse(body).messages as { role: string; content: unknown }[]
    for (const m of messages.filter((m) => m.role === 'tool')) expect(typeof m.content).toBe('string')
  })

  it('T72: the option wins over the host, both ways', async () => {
    expect(await bodyFor('http://127.0.0.1:8000/v1', 'local', { audioInput: 'input_audio' })).toContain(
      '"input_audio"',
    )
    expect(
      await bodyFor('https://api.openai.com/v1', 'gpt-4o-audio-preview', { audioInput: 'text' }),
    ).not.toContain('"input_audio"')
    expect(() =>
      createOpenAICompatibleModel({ apiKey: 'k', model: 'm', env: {}, audioInput: 'audio' as never }),
    ).toThrow(
      'createOpenAICompatibleModel(options): options.audioInput must be one of input_audio, text, got the string "audio"',
    )
  })
})
