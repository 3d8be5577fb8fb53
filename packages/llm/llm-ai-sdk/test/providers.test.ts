import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import type { FromAiSdkOptions } from '@deepseek-ai/dsh-llm-ai-sdk'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import { ANTHROPIC_SIGNATURE, anthropicMessages } from './support/anthropic-messages.ts'
import { runBridgeAgent } from './support/bridge-agent.ts'
import { openaiCompatibleChat } from './support/openai-compatible-chat.ts'
import { openaiResponses } from './support/openai-responses.ts'
import type { Json, WireTranscript } from './support/wire.ts'

// The AI SDK's own provider packages, pointed at a 127.0.0.1 server replaying their wire formats
// (each transcript cites its source), through fromAiSdk and a whole createAgent turn.

interface Case {
  readonly transcript: WireTranscript
  readonly model: (baseUrl: string) => LanguageModelV3
  readonly options?: FromAiSdkOptions
  /** What the second request must show of the first step (the provider's own history format). */
  readonly replayed: (body: Json) => void
}

const cases: readonly Case[] = [
  {
    transcript: anthropicMessages,
    model: (baseUrl) =>
      createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-ant-test' })('claude-sonnet-4-5'),
    // Extended thinking: Anthropic then requires the thinking block, signature and all, back first.
    options: {
      callOptions: {
        maxOutputTokens: 4096,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
      },
    },
    replayed: (body) => {
      const messages = body.messages as Json[]
      const assistant = messages.find((m) => m.role === 'assistant')!
      expect((assistant.content as Json[])[0]).toMatchObject({
        type: 'thinking',
        signature: ANTHROPIC_SIGNATURE,
      })
      expect((assistant.content as Json[]).filter((p) => p.type === 'tool_use')).toHaveLength(3)
    },
  },
  {
    transcript: openaiResponses,
    model: (baseUrl) => createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-test' }).responses('gpt-5'),
    replayed: (body) => {
      const input = body.input as Json[]
      expect(input.filter((item) => item.type === 'function_call').map((item) => item.call_id)).toEqual(
        openaiResponses.calls.map((c) => c.id),
      )
      expect(
        input.filter((item) => item.type === 'function_call_output').map((item) => item.call_id),
      ).toEqual(openaiResponses.calls.map((c) => c.id))
    },
  },
  {
    transcript: openaiCompatibleChat,
    model: (baseUrl) =>
      createOpenAICompatible({ name: 'deepseek', baseURL: baseUrl, apiKey: 'sk-test', includeUsage: true })(
        'deepseek-v4-pro',
      ),
    replayed: (body) => {
      const messages = body.messages as Json[]
      expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(
        openaiCompatibleChat.calls.map((c) => c.id),
      )
    },
  },
]

describe('fromAiSdk with the AI SDK provider packages', () => {
  for (const { transcript, model, options, replayed } of cases) {
    it(`T40: ${transcript.provider}: a createAgent turn, two parallel-safe tools started while the model streams, one approval`, async () => {
      const run = await runBridgeAgent(transcript, model, options)
      try {
        expect(run.error).toBeUndefined()
        expect(run.result).toMatchObject({ reason: 'completed', steps: 2, text: transcript.answer })
        expect(verifyToolPairs(run.session.events())).toMatchObject({ ok: true })
        // Eager dispatch: the first call started before the model's step finished (the loop's view)…
        const firstStart = run.events.find((e) => e.type === 'tool-call-start')
        expect(firstStart).toMatchObject({ name: 'get_weather', duringStream: true })
        if (transcript.callsCompleteMidStream) {
          // …and, for a package that yields each call when it completes, while the server still
          // held the rest of the stream.
          expect(run.heldUntilFirstStart).toBe(true)
          expect(run.starts[0]).toEqual({ name: 'get_weather', duringStream: true })
        }
        expect(run.starts.map((s) => s.name).sort()).toEqual(['book_table', 'get_time', 'get_weather'])
        // The AI SDK tool's needsApproval asked once, and the approved call ran with its arguments.
        expect(run.approvals).toEqual(['book_table'])
        expect(run.booked).toEqual([{ restaurant: 'Le Cinq', time: '20:00' }])
        // The recorded message holds the three calls exactly as the provider sent them.
        const message = run.session.events().find((e) => e.type === 'assistant/message')!
        const calls = ((message.data as Json).message as { content: Json[] }).content.filter(
          (b) => b.type === 'tool-call',
        )
        expect(calls).toEqual(transcript.calls.map((c) => ({ type: 'tool-call', ...c })))
        // The second request passed the provider's checks and carries the first step its way.
        expect(run.server.requests).toHaveLength(2)
        replayed(run.server.requests[1]!.body)
      } finally {
        await run.server.close()
      }
    }, 30_000)
  }
})
