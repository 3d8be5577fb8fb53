import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { createChunkAssembler } from '../src/create-chunk-assembler.ts'
import { chunk, reasoningChunks, textChunks, toolCallChunks } from './support/fixtures.ts'
import { collect, modelFor, simpleRequest } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, splitAt, sseText } from './support/sse.ts'

/** A model whose `fetch` answers with exactly these byte pieces, one `read()` each. */
function modelOverPieces(pieces: readonly Uint8Array[]) {
  return createOpenAICompatibleModel({
    apiKey: 'k',
    model: 'm',
    env: {},
    baseUrl: 'http://127.0.0.1:9',
    fetch: async () => {
      let i = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i < pieces.length) controller.enqueue(pieces[i++]!)
          else controller.close()
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
}

/** What a consumer ends up with: deltas joined, every other part as it is. */
function summary(parts: readonly ModelStreamPart[]) {
  let text = ''
  let reasoning = ''
  const rest: ModelStreamPart[] = []
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.text
    else if (part.type === 'reasoning-delta') reasoning += part.text
    else rest.push(part)
  }
  return { text, reasoning, rest }
}

const recorded = sseText([...reasoningChunks.slice(0, -1), ...toolCallChunks()])
const recordedBytes = Buffer.from(recorded, 'utf8')

describe('property: split points do not matter', () => {
  let reference: ReturnType<typeof summary>
  beforeAll(async () => {
    reference = summary(await collect(modelOverPieces([recordedBytes]).stream(simpleRequest)))
    expect(reference.rest.filter((p) => p.type === 'tool-call')).toHaveLength(3)
  })

  it('random byte split points (inside UTF-8 characters, field names, CR LF) yield the same parts and message', async () => {
    const lineEndings = fc.constantFrom('\n', '\r\n', '\r')
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: recordedBytes.length - 1 }), { maxLength: 60 }),
        lineEndings,
        fc.boolean(),
        async (cuts, eol, keepAlives) => {
          let text = recorded.replaceAll('\n', eol)
          // DeepSeek interleaves `: keep-alive` comments while the model is busy.
          if (keepAlives) text = text.replaceAll(`${eol}${eol}`, `${eol}${eol}: keep-alive${eol}${eol}`)
          const bytes = Buffer.from(text, 'utf8')
          const pieces = splitAt(
            bytes,
            cuts.map((c) => Math.min(c, bytes.length - 1)),
          )
          const got = summary(await collect(modelOverPieces(pieces).stream(simpleRequest)))
          expect(got).toEqual(reference)
        },
      ),
      { numRuns: 1000 },
    )
    // 1000 runs: on a loaded shared machine this takes longer than the default 5 s (no timing is asserted)
  }, 60_000)

  it('T40: random argument splits and packings of tool-call deltas assemble the same calls, each yielded by the chunk that begins the next call', async () => {
    const jsonArgs = fc
      .dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 4,
      })
      .map((value) => JSON.stringify(value))
    const call = fc.record({
      name: fc.stringMatching(/^[a-z][a-z_]{0,11}$/),
      args: jsonArgs,
      // Cuts on UTF-16 code units, so a surrogate pair may be split across two deltas too.
      cuts: fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 12 }),
    })
    const packing = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 20 })
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 5 }), packing, async (calls, sizes) => {
        // Each call: a first delta with id and name, then its argument text in pieces.
        const deltas: { index: number; value: Record<string, unknown> }[] = []
        calls.forEach((c, index) => {
          deltas.push({
            index,
            value: { index, id: `id_${index}`, type: 'function', function: { name: c.name, arguments: '' } },
          })
          const cuts = [...c.cuts.filter((n) => n > 0 && n < c.args.length), c.args.length].sort(
            (a, b) => a - b,
          )
          let at = 0
          for (const cut of cuts) {
            deltas.push({ index, value: { index, function: { arguments: c.args.slice(at, cut) } } })
            at = cut
          }
        })
        // Pack consecutive deltas into chunks of 1–3 entries.
        const chunks: Record<string, unknown>[] = []
        const packed: (typeof deltas)[] = []
        for (let i = 0, k = 0; i < deltas.length; k++) {
          const size = sizes[k % sizes.length]!
          packed.push(deltas.slice(i, i + size))
          chunks.push(chunk({ tool_calls: deltas.slice(i, i + size).map((d) => d.value) }))
          i += size
        }
        chunks.push(chunk({}, 'tool_calls'))
        const expected = calls.map((c, i) => ({
          type: 'tool-call' as const,
          id: `id_${i}`,
          name: c.name,
          arguments: c.args,
        }))

        // The assembler alone: which chunk made each call come out.
        const assembler = createChunkAssembler()
        const cameOutAt: number[] = []
        chunks.forEach((c, at) => {
          const out: ModelStreamPart[] = []
          assembler.push(c, out)
          for (const part of out) if (part.type === 'tool-call') cameOutAt.push(at)
        })
        const begins = calls.map((_, i) => packed.findIndex((group) => group.some((d) => d.index === i)))
        expect(cameOutAt).toEqual([...begins.slice(1), chunks.length - 1])

        // The whole adapter, over one byte buffer: the same calls, in the final message too.
        const parts = await collect(
          modelOverPieces([Buffer.from(sseText(chunks), 'utf8')]).stream(simpleRequest),
        )
        const yielded = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []))
        expect(yielded).toEqual(expected)
        const finish = parts.at(-1)
        expect(finish?.type === 'finish' && finish.response.message.content).toEqual(expected)
      }),
      { numRuns: 1000 },
    )
    // 1000 runs: on a loaded shared machine this takes longer than the default 5 s (no timing is asserted)
  }, 60_000)
})

describe('property: the same over a real socket', () => {
  let server: ReplayServer
  beforeAll(async () => {
    server = await startReplayServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('random split points through the 127.0.0.1 server yield the same message', async () => {
    const body = sseText([...textChunks.slice(0, -1), ...toolCallChunks()])
    const reference = summary(
      await collect(modelOverPieces([Buffer.from(body, 'utf8')]).stream(simpleRequest)),
    )
    const size = Buffer.byteLength(body, 'utf8')
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: size - 1 }), { maxLength: 25 }),
        async (cuts) => {
          server.respond(sse(body, { cuts }))
          expect(summary(await collect(modelFor(server).stream(simpleRequest)))).toEqual(reference)
        },
      ),
      { numRuns: 40 },
    )
  })
})
