import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV3FilePart, LanguageModelV3Prompt } from '@ai-sdk/provider'
import { tool } from 'ai'
import type { ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  assistantMessage,
  audioBlock,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  userMessage,
  type Message,
  type ModelStreamPart,
} from '@deepseek-ai/dsh-llm'
import { fromAiSdk, fromAiSdkTools, toPrompt } from '@deepseek-ai/dsh-llm-ai-sdk'
import { installTools } from '@deepseek-ai/dsh-tools'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { anthropicMessages } from './support/anthropic-messages.ts'
import { openaiCompatibleChat } from './support/openai-compatible-chat.ts'
import { openaiResponses } from './support/openai-responses.ts'

// T72 through the bridge. A dsh audio block is the AI SDK's `LanguageModelV3FilePart` (`{ type:
// 'file', mediaType, data }`, base64 data: the @ai-sdk/provider 3.x prompt types), and then the AI
// SDK's own provider packages write the wire (OpenAI's chat completions: `input_audio`, in user
// messages only, https://platform.openai.com/docs/guides/audio). Where a provider takes no audio
// (Anthropic's Messages API: text, image, document content only,
// https://docs.anthropic.com/en/api/messages; OpenAI's Responses API: input_text, input_image,
// input_file) the stand-in text goes, so nothing is dropped.

const WAV = Buffer.from('RIFF$\u0000\u0000\u0000WAVEfmt \u0010\u0000\u0000\u0000', 'latin1').toString(
  'base64',
)
const OGG = Buffer.from('OggS\u0000\u0002', 'latin1').toString('base64')
const wav = audioBlock({ mediaType: 'audio/wav', data: WAV })
const ogg = audioBlock({ mediaType: 'audio/ogg', data: OGG })
const WAV_NOTE = '[audio (audio/wav), 20 bytes, not shown]'
const OGG_NOTE = '[audio (audio/ogg), 6 bytes, not shown]'

const history: Message[] = [
  userMessage([textBlock('Listen:'), wav]),
  assistantMessage([toolCallBlock({ id: 'c1', name: 'record', args: {} })]),
  createToolResultMessage({ callId: 'c1', content: [textBlock('clips:'), wav, ogg], isError: false }),
]

describe('audio in the AI SDK prompt (T72)', () => {
  it("T72: audio 'file': a user message's audio is a file part; a tool result's goes in a user message after the tool messages", () => {
    const prompt = toPrompt(undefined, history, { audio: 'file' })
    const filePart: LanguageModelV3FilePart = { type: 'file', mediaType: 'audio/wav', data: WAV }
    expect(prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Listen:' }, filePart] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'record', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'record',
            output: {
              type: 'text',
              value:
                'clips:\n\n[audio: audio/wav, attached in the next user message]\n\n[audio: audio/ogg, attached in the next user message]',
            },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Audio returned by tool call c1:' },
          filePart,
          { type: 'file', mediaType: 'audio/ogg', data: OGG },
        ],
      },
    ] satisfies LanguageModelV3Prompt)
  })

  it("T72: audio 'text' (toPrompt's default), or a type outside audioMediaTypes: the stand-in", () => {
    const prompt = toPrompt(undefined, history)
    expect(prompt[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Listen:' },
        { type: 'text', text: WAV_NOTE },
      ],
    })
    expect(prompt[2]).toMatchObject({
      content: [{ output: { type: 'text', value: `clips:\n\n${WAV_NOTE}\n\n${OGG_NOTE}` } }],
    })
    expect(prompt).toHaveLength(3)
    const wavOnly = toPrompt(undefined, history, { audio: 'file', audioMediaTypes: ['audio/wav'] })
    expect(wavOnly[2]).toMatchObject({
      content: [
        {
          output: { value: `clips:\n\n[audio: audio/wav, attached in the next user message]\n\n${OGG_NOTE}` },
        },
      ],
    })
    expect(wavOnly[3]!.content).toHaveLength(2)
  })

  it('T72: an audio block that is not audio is INVALID_REQUEST naming its place', () => {
    const bad = [
      { role: 'user', content: [{ type: 'audio', mediaType: 'video/mp4', data: WAV }] },
    ] as unknown as Message[]
    expect(() => toPrompt(undefined, bad, { audio: 'file' })).toThrow(
      'request.messages[0].content[0]: an audio block\'s mediaType must be an audio media type such as "audio/wav", got the string "video/mp4"',
    )
  })
})

describe('audio through the AI SDK provider packages, on the wire (T72)', () => {
  let server: ReplayServer
  beforeEach(async () => {
    server = await startReplayServer()
  })
  afterEach(async () => {
    await server.close()
  })

  const replay = (pieces: readonly string[]) => async (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const piece of pieces) res.write(piece)
    res.end()
  }
  async function wireOf(model: Parameters<typeof fromAiSdk>[0], answer: readonly string[], options = {}) {
    server.respond(replay(answer))
    const parts: ModelStreamPart[] = []
    for await (const part of fromAiSdk(model, options).stream({ messages: history, tools: [] }))
      parts.push(part)
    expect(parts.at(-1)?.type).toBe('finish')
    return server.requests.at(-1)!.body as { messages?: { role: string; content: unknown }[] }
  }
  const openai = () => createOpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'sk-test' })

  it('T72: @ai-sdk/openai chat, an audio model: input_audio for wav in user messages, the stand-in for ogg, tool messages text only', async () => {
    const body = await wireOf(openai().chat('gpt-4o-audio-preview'), openaiCompatibleChat.answerStep)
    const input = { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } }
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Listen:' }, input] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'record', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: `clips:\n\n[audio: audio/wav, attached in the next user message]\n\n${OGG_NOTE}`,
      },
      { role: 'user', content: [{ type: 'text', text: 'Audio returned by tool call c1:' }, input] },
    ])
  })

  it('T72: @ai-sdk/openai chat, a model without audio; Responses; Anthropic: the stand-in, no audio dropped', async () => {
    const cases = [
      [openai().chat('gpt-4.1'), openaiCompatibleChat.answerStep],
      [openai().responses('gpt-5'), openaiResponses.answerStep],
      [
        createAnthropic({ baseURL: `${server.baseUrl}/v1`, apiKey: 'sk-ant' })('claude-sonnet-4-5'),
        anthropicMessages.answerStep,
      ],
    ] as const
    for (const [model, answer] of cases) {
      const text = JSON.stringify(await wireOf(model, answer))
      expect(text, model.provider).toContain(WAV_NOTE)
      expect(text, model.provider).toContain(OGG_NOTE)
      expect(text, model.provider).not.toContain(WAV)
    }
  })

  it("T72: why Anthropic gets the stand-in (the provider's own behaviour): @ai-sdk/anthropic drops a tool result's audio file with a warning", async () => {
    const anthropic = createAnthropic({ baseURL: `${server.baseUrl}/v1`, apiKey: 'sk-ant' })(
      'claude-sonnet-4-5',
    )
    // a tool result holding audio as the V3 prompt defines a file in a tool result (file-data)
    const prompt: LanguageModelV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Record it.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'record', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'record',
            output: { type: 'content', value: [{ type: 'file-data', data: OGG, mediaType: 'audio/ogg' }] },
          },
        ],
      },
    ]
    server.respond(replay(anthropicMessages.answerStep))
    const { stream } = await anthropic.doStream({ prompt })
    const reader = stream.getReader()
    const warnings: unknown[] = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value.type === 'stream-start') warnings.push(...value.warnings)
    }
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain(OGG)
    expect(warnings).toContainEqual(
      expect.objectContaining({
        message: 'unsupported tool content part type: file-data with media type: audio/ogg',
      }),
    )
  })

  it('T72: fromAiSdk options win; bad ones are INVALID_OPTIONS', async () => {
    const forcedText = JSON.stringify(
      await wireOf(openai().chat('gpt-4o-audio-preview'), openaiCompatibleChat.answerStep, { audio: 'text' }),
    )
    expect(forcedText).not.toContain('input_audio')
    expect(forcedText).toContain(WAV_NOTE)
    expect(() => fromAiSdk(openai().chat('x'), { audio: 'sound' as never })).toThrow(
      'fromAiSdk(languageModel, options): options.audio must be "file" or "text", got the string "sound"',
    )
    expect(() => fromAiSdk(openai().chat('x'), { audioMediaTypes: ['image/png'] })).toThrow(
      'options.audioMediaTypes must be an array of audio media types',
    )
  })
})

describe('audio from AI SDK tools (T71)', () => {
  it("T71: an AI SDK tool's toModelOutput audio file (file-data, base64) becomes an audio block; audio by URL a note", async () => {
    const ctx = createContext()
    installTools(ctx)
    await fromAiSdkTools(ctx, {
      record: tool({
        description: 'Record a clip',
        inputSchema: z.object({}),
        execute: async () => ({ wav: WAV }),
        // https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#multi-modal-tool-results
        toModelOutput: ({ output }) => ({
          type: 'content',
          value: [
            { type: 'text', text: 'one clip' },
            { type: 'file-data', data: output.wav, mediaType: 'audio/wav' },
            { type: 'file-url', url: 'https://example.invalid/b.mp3', mediaType: 'audio/mpeg' },
            { type: 'file-data', data: 'not base64!', mediaType: 'audio/wav' },
          ],
        }),
      }),
    })
    const result = await ctx.tools.execute({ callId: 'r1', name: 'record', arguments: '{}' })
    expect(result.content).toEqual([
      { type: 'text', text: 'one clip' },
      wav,
      { type: 'text', text: '[file omitted: https://example.invalid/b.mp3]' },
      { type: 'text', text: '[file omitted: audio/wav]' },
    ])
  })
})
