import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import type { ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { userMessage, type ModelRequest, type ModelStreamPart, type ToolChoice } from '@deepseek-ai/dsh-llm'
import { fromAiSdk } from '@deepseek-ai/dsh-llm-ai-sdk'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { anthropicMessages } from './support/anthropic-messages.ts'
import { openaiCompatibleChat } from './support/openai-compatible-chat.ts'
import { openaiResponses } from './support/openai-responses.ts'
import type { WireTranscript } from './support/wire.ts'

// The dsh ToolChoice through fromAiSdk into the AI SDK's own provider packages: what each one
// then puts on its wire is that provider's documented tool choice (cited per case).

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Time in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
]

function replay(pieces: readonly string[]) {
  return async (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const piece of pieces) res.write(piece)
    res.end()
  }
}

async function drain(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

interface Case {
  readonly transcript: WireTranscript
  readonly model: (baseUrl: string) => LanguageModelV3
  /** The provider's documented form of each choice in its request body. */
  readonly wire: (choice: ToolChoice) => unknown
  readonly field: string
}

const cases: readonly Case[] = [
  {
    // https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice
    transcript: openaiCompatibleChat,
    model: (baseUrl) =>
      createOpenAICompatible({ name: 'deepseek', baseURL: baseUrl, apiKey: 'sk-test' })('deepseek-v4-pro'),
    field: 'tool_choice',
    wire: (c) => (typeof c === 'string' ? c : { type: 'function', function: { name: c.name } }),
  },
  {
    // https://platform.openai.com/docs/api-reference/responses/create#responses-create-tool_choice
    transcript: openaiResponses,
    model: (baseUrl) => createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-test' }).responses('gpt-5'),
    field: 'tool_choice',
    wire: (c) => (typeof c === 'string' ? c : { type: 'function', name: c.name }),
  },
  {
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
    // ({ type: 'auto' | 'any' | 'tool' | 'none' }; "required" is Anthropic's "any")
    transcript: anthropicMessages,
    model: (baseUrl) =>
      createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-ant-test' })('claude-sonnet-4-5'),
    field: 'tool_choice',
    wire: (c) =>
      typeof c === 'string' ? { type: c === 'required' ? 'any' : c } : { type: 'tool', name: c.name },
  },
]

describe('toolChoice through the AI SDK provider packages', () => {
  for (const { transcript, model, wire, field } of cases) {
    it(`T44: ${transcript.provider}: auto, required and one named tool reach the wire in the provider's form`, async () => {
      const choices: ToolChoice[] = ['auto', 'required', { type: 'tool', name: 'get_time' }]
      for (const choice of choices) {
        server.respond(replay(transcript.answerStep))
        const request: ModelRequest = { messages: [userMessage('Weather?')], tools, toolChoice: choice }
        await drain(fromAiSdk(model(server.baseUrl)).stream(request))
        expect(server.requests.at(-1)!.body[field]).toEqual(wire(choice))
      }
    })
  }

  it('T44: a request without toolChoice leaves callOptions.toolChoice in force; a named tool not offered is INVALID_REQUEST', async () => {
    server.respond(replay(openaiCompatibleChat.answerStep))
    const llm = fromAiSdk(cases[0]!.model(server.baseUrl), {
      callOptions: { toolChoice: { type: 'required' } },
    })
    await drain(llm.stream({ messages: [userMessage('Hi')], tools }))
    expect(server.requests.at(-1)!.body.tool_choice).toBe('required')
    await expect(
      drain(llm.stream({ messages: [userMessage('Hi')], tools, toolChoice: { type: 'tool', name: 'rm' } })),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('"rm", which is not offered'),
    })
    expect(server.requests).toHaveLength(1)
  })

  it('the request providerOptions merge over callOptions.providerOptions, provider by provider', async () => {
    server.respond(replay(anthropicMessages.answerStep))
    const llm = fromAiSdk(cases[2]!.model(server.baseUrl), {
      callOptions: { maxOutputTokens: 4096, providerOptions: { anthropic: { sendReasoning: true } } },
    })
    await drain(
      llm.stream({
        messages: [userMessage('Hi')],
        tools,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
      }),
    )
    expect(server.requests.at(-1)!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
  })
})

describe('tool input streaming through the AI SDK provider packages', () => {
  for (const { transcript, model } of cases) {
    it(`T45: ${transcript.provider}: each call's arguments arrive as tool-input-start / -delta / -end before its tool-call`, async () => {
      server.respond(replay(transcript.toolStep))
      const parts = await drain(
        fromAiSdk(model(server.baseUrl)).stream({ messages: [userMessage('Go')], tools }),
      )
      for (const call of transcript.calls) {
        const mine = parts.filter(
          (p) => ('id' in p && p.id === call.id) || (p.type === 'tool-call' && p.call.id === call.id),
        )
        expect(mine[0]).toEqual({ type: 'tool-input-start', id: call.id, name: call.name })
        expect(mine.at(-2)).toEqual({ type: 'tool-input-end', id: call.id })
        expect(mine.at(-1)).toMatchObject({
          type: 'tool-call',
          call: { id: call.id, arguments: call.arguments },
        })
        const text = mine.flatMap((p) => (p.type === 'tool-input-delta' ? [p.delta] : [])).join('')
        expect(JSON.parse(text)).toEqual(JSON.parse(call.arguments))
      }
    })
  }
})
