import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toolCallsOf, type ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { deferred, type Deferred } from '../../../../test-support/deferred.ts'
import {
  chunk,
  reasoningChunks,
  textAnswer,
  textChunks,
  toolArgs,
  toolCallChunks,
} from './support/fixtures.ts'
import { callPartTypes, collect, modelFor, simpleRequest, weatherTool } from './support/model.ts'
import {
  startReplayServer,
  type ReplayServer,
  type Responder,
} from '../../../../test-support/replay-server.ts'
import { byteOffsetsOf, sse, sseText, writePiece, writeSseHead } from './support/sse.ts'

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

const textOfParts = (parts: ModelStreamPart[], type: 'text-delta' | 'reasoning-delta'): string =>
  parts.map((p) => (p.type === type ? p.text : '')).join('')

describe('stream: text and reasoning', () => {
  it('streams text deltas and finishes with the assembled message and DeepSeek usage', async () => {
    server.respond(sse(sseText(textChunks)))
    const parts = await collect(modelFor(server).stream(simpleRequest))
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text)).toEqual([
      'Hel',
      'lo, wörld',
      ' 世界 🙂',
    ])
    const finish = parts.at(-1)
    expect(finish).toEqual({
      type: 'finish',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: textAnswer }] },
        finishReason: 'stop',
        usage: {
          inputTokens: 120,
          outputTokens: 42,
          totalTokens: 162,
          cacheHitInputTokens: 64,
          cacheMissInputTokens: 56,
        },
      },
    })
  })

  it('keeps reasoning_content as a reasoning block (before the text) and counts reasoning tokens', async () => {
    server.respond(sse(sseText(reasoningChunks)))
    const parts = await collect(modelFor(server).stream(simpleRequest))
    expect(textOfParts(parts, 'reasoning-delta')).toBe('9.11 vs 9.8: compare 0.11 and 0.8 — 0.8 is larger.')
    expect(textOfParts(parts, 'text-delta')).toBe('9.8 is larger.')
    const finish = parts.at(-1)
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.response.message.content).toEqual([
      { type: 'reasoning', text: '9.11 vs 9.8: compare 0.11 and 0.8 — 0.8 is larger.' },
      { type: 'text', text: '9.8 is larger.' },
    ])
    expect(finish.response.usage.reasoningTokens).toBe(30)
  })

  it('reassembles text cut inside multi-byte UTF-8 characters, inside "data:" and between CR LF', async () => {
    const body = sseText(textChunks).replaceAll('\n', '\r\n')
    // Cut after the first byte of ö (2 bytes), 世 (3 bytes) and 🙂 (4 bytes: after bytes 1, 2 and 3).
    const cuts = [
      ...byteOffsetsOf(body, 'ö', 1),
      ...byteOffsetsOf(body, '世', 1),
      ...byteOffsetsOf(body, '🙂', 1),
      ...byteOffsetsOf(body, '🙂', 2),
      ...byteOffsetsOf(body, '🙂', 3),
      ...byteOffsetsOf(body, 'data:', 2),
      ...byteOffsetsOf(body, '\r\n', 1),
    ]
    expect(cuts.length).toBeGreaterThan(10)
    server.respond(sse(body, { cuts }))
    const response = await modelFor(server).step(simpleRequest)
    expect(response.message.content).toEqual([{ type: 'text', text: textAnswer }])
  })

  it('ignores SSE comments (DeepSeek keep-alives) and events without data', async () => {
    server.respond(sse(`: keep-alive\n\n: keep-alive\n\nevent: ping\ndata:\n\n${sseText(textChunks)}`))
    const response = await modelFor(server).step(simpleRequest)
    expect(response.message.content).toEqual([{ type: 'text', text: textAnswer }])
  })

  it('step() returns exactly the response of the stream’s finish part', async () => {
    server.respond(sse(sseText(toolCallChunks())), sse(sseText(toolCallChunks())))
    const model = modelFor(server)
    const fromStep = await model.step(simpleRequest)
    const finish = (await collect(model.stream(simpleRequest))).at(-1)
    expect(finish).toEqual({ type: 'finish', response: fromStep })
  })

  it('keeps the connection alive between steps: the end of the body after [DONE] is read in the background', async () => {
    // The server ends the body a little after [DONE]; closing at [DONE] would cost the connection.
    const endLate: Responder = async (res) => {
      writeSseHead(res)
      await writePiece(res, sseText(textChunks))
      await new Promise((resolve) => setTimeout(resolve, 20))
      res.end()
    }
    server.respond(endLate, endLate)
    const model = modelFor(server)
    await model.step(simpleRequest)
    await server.requests[0]!.closed
    // undici hands a finished connection back to its pool on a later tick.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    await model.step(simpleRequest)
    const [first, second] = server.requests
    expect(first!.remotePort).toBeDefined()
    expect(second!.remotePort).toBe(first!.remotePort)
  })

  it('stops reading at [DONE]: a server that keeps the connection open does not hold the finish part back', async () => {
    // The server ends the body only once the step has resolved. Waiting for the end of the body
    // before yielding `finish` would deadlock until a grace timer closed the connection (and the
    // next step would then need a new one); reading the end in the background keeps it.
    const stepResolved = deferred()
    server.respond(
      async (res) => {
        writeSseHead(res)
        await writePiece(res, sseText(textChunks))
        await stepResolved.promise
        res.end()
      },
      sse(sseText(textChunks)),
    )
    const model = modelFor(server)
    const response = await model.step(simpleRequest)
    stepResolved.resolve()
    expect(response.message.content).toEqual([{ type: 'text', text: textAnswer }])
    await server.requests[0]!.closed
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    await model.step(simpleRequest)
    const [first, second] = server.requests
    expect(second!.remotePort).toBe(first!.remotePort)
  })

  it('re-arms timeoutMs on every chunk: a long healthy stream with chunks spaced under the timeout completes', async () => {
    // 16 pieces 100 ms apart (1.6 s in all) against a 1 s silence timeout: a timer armed once
    // would fire before the end; re-armed on each read it never does (each gap is a tenth of it).
    const pieces = Array.from({ length: 16 }, (_, i) => chunk({ content: `${i} ` }))
    server.respond(async (res) => {
      writeSseHead(res)
      for (const piece of pieces) {
        await writePiece(res, `data: ${JSON.stringify(piece)}\n\n`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await writePiece(res, sseText([chunk({}, 'stop')]))
      res.end()
    })
    const response = await modelFor(server, { timeoutMs: 1000 }).step(simpleRequest)
    expect(response.finishReason).toBe('stop')
    expect(response.message.content).toEqual([{ type: 'text', text: pieces.map((_, i) => `${i} `).join('') }])
  }, 30_000)

  it('reads a server that ignores stream: true and answers one JSON completion', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'Checking.',
                reasoning_content: 'Use the tool.',
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                  },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: {
            prompt_tokens: 10,
            completion_tokens: 5,
            total_tokens: 15,
            prompt_tokens_details: { cached_tokens: 4 },
          },
        }),
      )
    })
    const parts = await collect(modelFor(server).stream(simpleRequest))
    expect(callPartTypes(parts)).toEqual(['reasoning-delta', 'text-delta', 'tool-call', 'finish'])
    const finish = parts.at(-1)
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.response.finishReason).toBe('tool-calls')
    // OpenAI's cached_tokens: the miss count is what remains of the prompt.
    expect(finish.response.usage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cacheHitInputTokens: 4,
      cacheMissInputTokens: 6,
    })
  })
})

describe('stream: tool calls', () => {
  it('assembles argument deltas (split inside keys, quotes and multi-byte characters) into tool-call parts', async () => {
    const body = sseText(toolCallChunks())
    server.respond(sse(body, { cuts: [...byteOffsetsOf(body, '杭', 2), ...byteOffsetsOf(body, '🙂', 3)] }))
    const parts = await collect(modelFor(server).stream({ ...simpleRequest, tools: [weatherTool] }))
    const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []))
    expect(calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ['call_0_abc', 'get_weather', toolArgs[0]],
      ['call_1_abc', 'read_file', toolArgs[1]],
      ['call_2_abc', 'search', toolArgs[2]],
    ])
    // The raw argument text is exactly what the model wrote.
    expect(calls.map((c) => c.arguments)).toEqual(toolArgs.map((a) => JSON.stringify(a)))
    const finish = parts.at(-1)
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.response.finishReason).toBe('tool-calls')
    expect(toolCallsOf(finish.response.message)).toEqual(calls)
    expect(finish.response.message.content.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'I need the weather, a file and a search.' },
      { type: 'text', text: 'Let me check.' },
    ])
    expect(finish.response.usage).toMatchObject({
      inputTokens: 300,
      cacheHitInputTokens: 256,
      cacheMissInputTokens: 44,
    })
  })

  it('T40: yields each tool call the moment the next call begins, and the last one at finish_reason', async () => {
    const chunks = toolCallChunks()
    const starts = chunks.flatMap((c, i) => (JSON.stringify(c).includes('"id":"call_') ? [i] : []))
    const finishAt = chunks.findIndex((c) => JSON.stringify(c).includes('"finish_reason":"tool_calls"'))
    expect(starts).toHaveLength(3)
    // The server holds back everything after call k+1 began (and after finish_reason) until the
    // client has yielded call k: an adapter that waited for the end of the stream would never finish.
    const gates: Deferred[] = [deferred(), deferred(), deferred()]
    const holdBefore = new Map<number, number>([
      [starts[1]! + 1, 0],
      [starts[2]! + 1, 1],
      [finishAt + 1, 2],
    ])
    let written = 0
    server.respond(async (res) => {
      writeSseHead(res)
      for (const [i, c] of chunks.entries()) {
        const gate = holdBefore.get(i)
        if (gate !== undefined) await gates[gate]!.promise
        written = i + 1
        await writePiece(res, sseText([c], { done: false }))
      }
      await writePiece(res, 'data: [DONE]\n\n')
      res.end()
    })
    const seen: [string, number][] = []
    for await (const part of modelFor(server).stream(simpleRequest)) {
      if (part.type === 'tool-call') {
        seen.push([part.call.id, written])
        gates[Number(part.call.id.split('_')[1])]!.resolve()
      } else if (part.type === 'finish') seen.push(['finish', written])
    }
    // Each call arrived while the server was blocked right after the chunk that completed it.
    expect(seen).toEqual([
      ['call_0_abc', starts[1]! + 1],
      ['call_1_abc', starts[2]! + 1],
      ['call_2_abc', finishAt + 1],
      ['finish', chunks.length],
    ])
  })

  it('handles several calls in one chunk, calls without an index, and empty arguments', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [
              { index: 0, id: 'a', type: 'function', function: { name: 'now', arguments: '' } },
              { index: 1, id: 'b', type: 'function', function: { name: 'echo', arguments: '{"x":' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: '1}' } }] }),
          chunk({ tool_calls: [{ id: 'c', type: 'function', function: { name: 'echo', arguments: '{}' } }] }),
          chunk({}, 'tool_calls'),
        ]),
      ),
    )
    const parts = await collect(modelFor(server).stream(simpleRequest))
    expect(
      parts.flatMap((p) => (p.type === 'tool-call' ? [[p.call.id, p.call.name, p.call.arguments]] : [])),
    ).toEqual([
      ['a', 'now', '{}'],
      ['b', 'echo', '{"x":1}'],
      ['c', 'echo', '{}'],
    ])
  })

  it('gives a call without an id a unique one', async () => {
    const noIds = sseText([
      chunk({ tool_calls: [{ index: 0, function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ])
    server.respond(sse(noIds))
    const { message } = await modelFor(server).step(simpleRequest)
    const ids = toolCallsOf(message).map((c) => c.id)
    expect(ids).toHaveLength(2)
    expect(ids[0]).toMatch(/^call_[0-9a-f-]{36}$/)
    expect(new Set(ids).size).toBe(2)
  })

  it('maps every finish_reason', async () => {
    const reasons = {
      stop: 'stop',
      tool_calls: 'tool-calls',
      length: 'length',
      content_filter: 'content-filter',
      something_new: 'other',
    }
    for (const raw of Object.keys(reasons)) server.respond(sse(sseText([chunk({ content: 'x' }, raw)])))
    const model = modelFor(server)
    for (const [raw, mapped] of Object.entries(reasons)) {
      expect([raw, (await model.step(simpleRequest)).finishReason]).toEqual([raw, mapped])
    }
  })

  it('on length, the cut-off call is still yielded (its JSON does not parse) so the message holds every yielded call', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [
              { index: 0, id: 'a', type: 'function', function: { name: 'write', arguments: '{"text":"lo' } },
            ],
          }),
          chunk({}, 'length'),
        ]),
      ),
    )
    const parts = await collect(modelFor(server).stream(simpleRequest))
    expect(callPartTypes(parts)).toEqual(['tool-call', 'finish'])
    const finish = parts.at(-1)
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.response.finishReason).toBe('length')
    expect(toolCallsOf(finish.response.message)).toEqual([
      { type: 'tool-call', id: 'a', name: 'write', arguments: '{"text":"lo' },
    ])
    expect(() => JSON.parse('{"text":"lo')).toThrow()
  })
})
