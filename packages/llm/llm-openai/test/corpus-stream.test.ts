import { afterEach, describe, expect, it } from 'vitest'
import type { ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from '@deepseek-ai/dsh-llm-openai'
import { corpus } from './corpus/corpus.ts'
import { corpusModel, corpusRequest, startCorpusServer } from './corpus/replay-corpus.ts'
import type { ExpectedCall, Transcript } from './corpus/transcript.ts'
import type { ReplayServer } from '../../../../test-support/replay-server.ts'

// The corpus of provider transcripts (test/corpus), each replayed by a 127.0.0.1 server that first
// checks the request the way that provider documents, through `model.stream`.

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const callMatcher = (call: ExpectedCall) => ({
  type: 'tool-call',
  id: call.id instanceof RegExp ? expect.stringMatching(call.id) : call.id,
  name: call.name,
  arguments: call.arguments,
})

async function streamOf(transcript: Transcript): Promise<{ parts: ModelStreamPart[]; error: unknown }> {
  server = await startCorpusServer(transcript)
  const parts: ModelStreamPart[] = []
  try {
    for await (const part of corpusModel(transcript, server).stream(corpusRequest)) parts.push(part)
  } catch (error) {
    return { parts, error }
  }
  return { parts, error: undefined }
}

const text = (parts: readonly ModelStreamPart[], type: 'text-delta' | 'reasoning-delta'): string =>
  parts.map((part) => (part.type === type ? part.text : '')).join('')

describe('provider corpus: model.stream', () => {
  it('covers 13 providers with 23 transcripts, each citing its sources', () => {
    expect(corpus).toHaveLength(23)
    expect(new Set(corpus.map((t) => t.provider.replace(/ \(.*\)$| behind .*$/, ''))).size).toBe(13)
    expect(new Set(corpus.map((t) => t.id)).size).toBe(corpus.length)
    for (const transcript of corpus) {
      expect(transcript.sources.length, transcript.id).toBeGreaterThan(0)
      for (const source of transcript.sources) expect(source, transcript.id).toMatch(/^https:\/\//)
    }
  })

  for (const transcript of corpus) {
    it(`T40: ${transcript.id} (${transcript.provider}): ${transcript.quirk}`, async () => {
      const { parts, error } = await streamOf(transcript)
      const expected = transcript.expected
      const calls = parts.filter((part) => part.type === 'tool-call').map((part) => part.call)
      expect(calls).toEqual(expected.calls.map(callMatcher))
      if (expected.kind === 'error') {
        expect(ChatCompletionsError.isInstance(error), String(error)).toBe(true)
        expect(error).toMatchObject({ code: expected.code, retryable: expected.retryable })
        expect((error as Error).message).toContain(expected.message)
        expect(parts.some((part) => part.type === 'finish')).toBe(false)
        return
      }
      expect(error).toBeUndefined()
      const finish = parts.at(-1)
      if (finish?.type !== 'finish') throw new Error(`no finish part: ${JSON.stringify(parts.at(-1))}`)
      // Every tool-call part came before the finish, and the finish message holds exactly those.
      expect(finish.response.message.content.filter((block) => block.type === 'tool-call')).toEqual(calls)
      expect(text(parts, 'reasoning-delta')).toBe(expected.reasoning ?? '')
      expect(text(parts, 'text-delta')).toBe(expected.text ?? '')
      expect(finish.response.finishReason).toBe(expected.finishReason)
      expect(finish.response.usage).toMatchObject(expected.usage)
      // The request the provider accepted: the model the host expects, nothing it refuses.
      expect(server!.requests[0]!.body.model).toBe(transcript.model)
    })
  }
})
