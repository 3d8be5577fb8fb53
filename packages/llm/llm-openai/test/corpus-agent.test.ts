import { describe, expect, it } from 'vitest'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import { corpus } from './corpus/corpus.ts'
import { runCorpusAgent } from './corpus/replay-corpus.ts'

// Each transcript of the corpus through a whole agent turn: two parallel-safe tools, eager dispatch
// (createAgent's default with a streaming model), the provider's request checks on every request.

type Json = Record<string, unknown>

describe('provider corpus: a two-tool createAgent turn with eager dispatch', () => {
  for (const transcript of corpus) {
    it(`T40: ${transcript.id} (${transcript.provider})`, async () => {
      const run = await runCorpusAgent(transcript)
      try {
        const { result, error, session, starts, server } = run
        const expected = transcript.agent
        expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
        expect(server.requests).toHaveLength(expected.requests)
        if (expected.reason === 'error') {
          expect(result.reason).toBe('error')
          expect(error).toMatchObject({ code: expected.code })
        } else {
          expect(error).toBeUndefined()
          expect(result).toMatchObject({ reason: 'completed', text: expected.text })
        }
        const callingStep = transcript.steps.some(
          (step) => step.kind === 'sse' && step.holdAfter !== undefined,
        )
        // A turn that reaches its tool-calling step (a refused request never does).
        const reachesCalls = expected.reason === 'completed' || transcript.expected.calls.length > 0
        if (callingStep && reachesCalls) {
          // The first tool started while the server still held the rest of the stream: eager dispatch.
          expect(run.heldUntilFirstStart).toBe(true)
          expect(starts[0]?.duringStream).toBe(true)
        }
        if (transcript.expected.calls.length > 0 && expected.reason === 'completed') {
          expect(starts.map((s) => `${s.name}(${s.city})`).sort()).toEqual(
            transcript.expected.calls
              .map((c) => `${c.name}(${(JSON.parse(c.arguments) as { city: string }).city})`)
              .sort(),
          )
          // The request after the tools answered every call, in the provider's accepted form.
          const next = server.requests.at(-1)!.body.messages as Json[]
          const tools = next.filter((m) => m.role === 'tool')
          expect(tools.map((m) => m.tool_call_id)).toEqual(transcript.expected.calls.map((c) => c.id))
          if (transcript.toolImage === true) {
            const last = next.map((m) => m.role).lastIndexOf('tool')
            expect(next[last + 1]).toMatchObject({
              role: 'user',
              content: [
                { type: 'text', text: expect.stringContaining(String(tools[1]!.tool_call_id)) },
                { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
              ],
            })
          }
        }
      } finally {
        await run.server.close()
      }
    }, 30_000)
  }
})
