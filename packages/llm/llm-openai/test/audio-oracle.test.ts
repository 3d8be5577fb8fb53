import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV3Prompt } from '@ai-sdk/provider'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { UserContent } from '@deepseek-ai/dsh-llm'
import { toWireMessages } from '@deepseek-ai/dsh-llm-openai'

// T72, with an oracle: the AI SDK's own OpenAI provider (`@ai-sdk/openai`, its chat-completions
// model) writes a user message's text, images and audio into the request body it sends. For any
// such message the adapter's user content must be the same parts. Where the provider refuses an
// audio type (anything but audio/wav, audio/mp3, audio/mpeg: UnsupportedFunctionalityError), the
// adapter sends the stand-in text instead of failing or dropping it.

/** The body `@ai-sdk/openai` sends for one user message, captured at its `fetch`. */
async function oracleBody(content: readonly UserContent[]): Promise<{ messages: unknown[] } | Error> {
  let body: { messages: unknown[] } | undefined
  const provider = createOpenAI({
    apiKey: 'sk-oracle',
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body)) as { messages: unknown[] }
      return new Response(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'gpt-4o-audio-preview',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      )
    },
  })
  const prompt: LanguageModelV3Prompt = [
    {
      role: 'user',
      content: content.map((block) =>
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : { type: 'file', mediaType: block.mediaType, data: block.data! },
      ),
    },
  ]
  try {
    await provider.chat('gpt-4o-audio-preview').doGenerate({ prompt })
  } catch (error) {
    return error as Error
  }
  return body!
}

const base64 = fc.uint8Array({ minLength: 1, maxLength: 24 }).map((b) => Buffer.from(b).toString('base64'))
const text = fc.string({ maxLength: 12 }).map((t): UserContent => ({ type: 'text', text: t }))
const image = fc
  .record({ mediaType: fc.constantFrom('image/png', 'image/jpeg', 'image/webp'), data: base64 })
  .map((b): UserContent => ({ type: 'image', ...b }))
const knownAudio = fc
  .record({ mediaType: fc.constantFrom('audio/wav', 'audio/mpeg', 'audio/mp3'), data: base64 })
  .map((b): UserContent => ({ type: 'audio', ...b }))
const otherAudio = fc
  .record({ mediaType: fc.constantFrom('audio/ogg', 'audio/flac', 'audio/aac', 'audio/webm'), data: base64 })
  .map((b) => ({ type: 'audio' as const, ...b }))

describe('audio in user messages against @ai-sdk/openai (T72)', () => {
  it('T72: text, images and wav/mp3 audio become the very parts the AI SDK’s OpenAI provider sends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(fc.oneof(text, image, knownAudio), { minLength: 1, maxLength: 6 })
          .filter((blocks) => blocks.some((b) => b.type !== 'text')),
        async (blocks) => {
          const oracle = await oracleBody(blocks)
          if (oracle instanceof Error) throw oracle
          const [ours] = toWireMessages(undefined, [{ role: 'user', content: blocks }], {
            reasoningReplay: 'never',
            audioInput: 'input_audio',
          })
          expect(JSON.parse(JSON.stringify(ours))).toEqual(oracle.messages[0])
        },
      ),
      { numRuns: 150 },
    )
  })

  it('T72: audio of a type the provider refuses is the stand-in text here, never an error or nothing', async () => {
    await fc.assert(
      fc.asyncProperty(otherAudio, text, async (audio, note) => {
        const oracle = await oracleBody([note, audio])
        expect(oracle).toBeInstanceOf(Error)
        expect((oracle as Error).message).toContain(`audio content parts with media type ${audio.mediaType}`)
        const [ours] = toWireMessages(undefined, [{ role: 'user', content: [note, audio] }], {
          reasoningReplay: 'never',
          audioInput: 'input_audio',
        })
        const bytes = Buffer.from(audio.data, 'base64').length
        expect(ours).toEqual({
          role: 'user',
          content: `${(note as { text: string }).text}\n\n[audio (${audio.mediaType}), ${bytes} bytes, not shown]`,
        })
      }),
      { numRuns: 50 },
    )
  })
})
