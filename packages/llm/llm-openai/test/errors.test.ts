import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DshError } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError, type ChatCompletionsErrorCode } from '@deepseek-ai/dsh-llm-openai'
import { chunk, textChunks, toolCallChunks } from './support/fixtures.ts'
import { callPartTypes, collectUntilError, modelFor, simpleRequest } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { answer, sse, sseText, writePiece, writeSseHead } from './support/sse.ts'

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

async function failure(options: Parameters<typeof modelFor>[1] = {}): Promise<ChatCompletionsError> {
  const error = await modelFor(server, options)
    .step(simpleRequest)
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  if (!ChatCompletionsError.isInstance(error))
    throw new Error(`expected a ChatCompletionsError, got ${String(error)}`)
  return error
}

const openAiError = (message: string, type = 'invalid_request_error', code: string | null = null) => ({
  error: { message, type, param: null, code },
})

describe('HTTP errors map to stable codes', () => {
  it('400 keeps the provider message', async () => {
    server.respond(answer(400, openAiError('Invalid value for tool_choice')))
    const error = await failure()
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
      retryable: false,
      kind: 'system',
      providerMessage: 'Invalid value for tool_choice',
      providerCode: 'invalid_request_error',
    })
    expect(error.message).toContain('HTTP 400')
    expect(error.message).toContain('Invalid value for tool_choice')
    expect(error.message).not.toContain('sk-test-key')
  })

  it('a 400 about the context window, OpenAI’s context_length_exceeded and 413 are CONTEXT_LENGTH_EXCEEDED', async () => {
    server.respond(
      answer(
        400,
        openAiError(
          "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion).",
        ),
      ),
      answer(400, openAiError('too long', 'invalid_request_error', 'context_length_exceeded')),
      answer(413, 'Request Entity Too Large'),
    )
    for (let i = 0; i < 3; i++) expect((await failure()).code).toBe('CONTEXT_LENGTH_EXCEEDED')
  })

  it('401, 402, 403, 404 (naming the model), 408, 422 and an unexpected 418', async () => {
    const cases: [number, ChatCompletionsErrorCode, boolean][] = [
      [401, 'AUTHENTICATION_FAILED', false],
      [402, 'INSUFFICIENT_BALANCE', false],
      [403, 'PERMISSION_DENIED', false],
      [404, 'MODEL_NOT_FOUND', false],
      [408, 'TIMEOUT', true],
      [422, 'BAD_REQUEST', false],
      [418, 'HTTP_ERROR', false],
    ]
    for (const [status] of cases) server.respond(answer(status, openAiError(`status ${status}`)))
    for (const [status, code, retryable] of cases) {
      const error = await failure()
      expect([status, error.code, error.status, error.retryable]).toEqual([status, code, status, retryable])
      expect(error.message).toContain(`status ${status}`)
      if (status === 404) expect(error.message).toContain('model "deepseek-chat"')
    }
  })

  it('429 carries retryAfterMs from Retry-After seconds, an HTTP date, or retry-after-ms', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString()
    server.respond(
      answer(429, openAiError('Rate limit reached', 'rate_limit_error'), { 'retry-after': '7' }),
      answer(429, openAiError('Rate limit reached'), { 'retry-after': inTwoMinutes }),
      answer(429, openAiError('Rate limit reached'), { 'retry-after-ms': '1500', 'retry-after': '9' }),
      answer(429, openAiError('Rate limit reached')),
    )
    const seconds = await failure()
    expect(seconds).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryable: true, retryAfterMs: 7000 })
    const date = await failure()
    // An HTTP date has whole seconds and the clock moves on: about two minutes, never more.
    expect(date.retryAfterMs).toBeGreaterThan(100_000)
    expect(date.retryAfterMs).toBeLessThanOrEqual(120_000)
    expect((await failure()).retryAfterMs).toBe(1500)
    expect((await failure()).retryAfterMs).toBeUndefined()
  })

  it('5xx is SERVER_ERROR, retryable, with Retry-After when given; a non-JSON body becomes the message', async () => {
    server.respond(
      answer(500, openAiError('internal error', 'server_error')),
      answer(503, '<html>Service Unavailable</html>', { 'retry-after': '30' }),
    )
    expect(await failure()).toMatchObject({ code: 'SERVER_ERROR', status: 500, retryable: true })
    const unavailable = await failure()
    expect(unavailable).toMatchObject({ code: 'SERVER_ERROR', status: 503, retryAfterMs: 30_000 })
    expect(unavailable.message).toContain('<html>Service Unavailable</html>')
  })

  it('every error is a DshError of the chatCompletions family', async () => {
    server.respond(answer(401, openAiError('Authentication Fails, Your api key is invalid')))
    const error = await failure()
    expect(error).toBeInstanceOf(Error)
    expect(DshError.isDshError(error)).toBe(true)
    expect(DshError.isOfFamily(error, 'chatCompletions')).toBe(true)
    expect(error.name).toBe('ChatCompletionsError')
  })
})

describe('connection and stream failures', () => {
  it('a connection dropped mid-stream is CONNECTION_LOST; calls completed before it were already yielded', async () => {
    const chunks = toolCallChunks()
    const call1Started = chunks.findIndex((c) => JSON.stringify(c).includes('"id":"call_1_abc"'))
    server.respond(async (res) => {
      writeSseHead(res)
      await writePiece(res, sseText(chunks.slice(0, call1Started + 2), { done: false }))
      res.socket?.destroy()
    })
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(error).toMatchObject({ code: 'CONNECTION_LOST', retryable: true })
    expect((error as Error).message).toContain(
      'the connection dropped mid-stream: terminated (other side closed)',
    )
    expect(
      parts.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && p.call.id),
    ).toEqual(['call_0_abc'])
    expect(parts.some((p) => p.type === 'finish')).toBe(false)
  })

  it('a malformed SSE chunk is MALFORMED_STREAM, after the parts before it', async () => {
    server.respond(sse(`${sseText(textChunks.slice(0, 2), { done: false })}data: {"choices": [\n\n`))
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(parts).toEqual([{ type: 'text-delta', text: 'Hel' }])
    expect(error).toMatchObject({ code: 'MALFORMED_STREAM', retryable: false })
    expect((error as Error).message).toContain('not JSON')
  })

  it('chunks of the wrong shape are MALFORMED_STREAM', async () => {
    const bad = [
      '[1, 2]',
      '{"choices": {"0": {}}}',
      JSON.stringify(chunk({ content: 42 })),
      JSON.stringify(chunk({ tool_calls: [{ index: -1 }] })),
      JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: 7 } }] })),
      JSON.stringify(chunk({}, 5 as unknown as string)),
    ]
    for (const data of bad) server.respond(sse(`data: ${data}\n\n`))
    for (const data of bad) expect([data, (await failure()).code]).toEqual([data, 'MALFORMED_STREAM'])
  })

  it('a tool call that changes after it was yielded is MALFORMED_STREAM (never silently different arguments)', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [
              { index: 0, id: 'a', type: 'function', function: { name: 'rm', arguments: '{"p":"x"}' } },
            ],
          }),
          chunk({
            tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'ls', arguments: '{}' } }],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: ',"force":true}' } }] }),
        ]),
      ),
      sse(
        sseText([
          chunk({
            tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'rm', arguments: '{}' } }],
          }),
          chunk({ tool_calls: [{ index: 0, function: { name: 'ls' } }] }),
        ]),
      ),
    )
    const late = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(callPartTypes(late.parts)).toEqual(['tool-call'])
    expect(late.error).toMatchObject({ code: 'MALFORMED_STREAM' })
    expect((late.error as Error).message).toContain('tool call 0 changed after it was complete')
    const renamed = await failure()
    expect(renamed.message).toContain('changed its function name')
  })

  it('two tool calls with one id are MALFORMED_STREAM (results pair with calls by id)', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [
              { index: 0, id: 'same', type: 'function', function: { name: 'a', arguments: '{}' } },
            ],
          }),
          chunk({
            tool_calls: [
              { index: 1, id: 'same', type: 'function', function: { name: 'b', arguments: '{}' } },
            ],
          }),
          chunk({}, 'tool_calls'),
        ]),
      ),
    )
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(callPartTypes(parts)).toEqual(['tool-call'])
    expect(error).toMatchObject({ code: 'MALFORMED_STREAM' })
    expect((error as Error).message).toContain('reuses the id "same"')
  })

  it('a redirect is not followed: HTTP_ERROR naming the new location, and nothing is sent there', async () => {
    server.respond(answer(307, '', { location: `${server.baseUrl}/elsewhere` }))
    const error = await failure()
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 307 })
    expect(error.message).toContain(`redirected to ${server.baseUrl}/elsewhere; point baseUrl there`)
    expect(server.requests).toHaveLength(1)
  })

  it('bytes that are not UTF-8 are MALFORMED_STREAM', async () => {
    server.respond(async (res) => {
      writeSseHead(res)
      await writePiece(res, Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xfe, 0x0a, 0x0a]))
      res.end()
    })
    expect((await failure()).message).toContain('not valid UTF-8')
  })

  it('T40: a call completed by a chunk that then turns out malformed is yielded before the error', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }],
          }),
          // One chunk: call 1 begins (so call 0 is complete), then a late delta for call 0.
          chunk({
            tool_calls: [
              { index: 1, id: 'b', type: 'function', function: { name: 'y', arguments: '{}' } },
              { index: 0, function: { arguments: '{"late":1}' } },
            ],
          }),
        ]),
      ),
    )
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { type: 'tool-call', id: 'a', name: 'x', arguments: '{}' } },
    ])
    expect(error).toMatchObject({ code: 'MALFORMED_STREAM' })
    expect((error as Error).message).toContain('tool call 0 changed after it was complete')
  })

  it('[DONE] without a finish_reason is INCOMPLETE_STREAM, and the unfinished call is not yielded', async () => {
    server.respond(
      sse(
        sseText([
          chunk({ content: 'Working' }),
          chunk({
            tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'x', arguments: '{' } }],
          }),
        ]),
      ),
    )
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    // the call's input was shown as it arrived, but it never ended and the call was never yielded
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Working' },
      { type: 'tool-input-start', id: 'a', name: 'x' },
      { type: 'tool-input-delta', id: 'a', delta: '{' },
    ])
    expect(error).toMatchObject({ code: 'INCOMPLETE_STREAM', retryable: true })
    expect((error as Error).message).toContain('[DONE] without a finish_reason')
  })

  it('an empty finish_reason (old Ollama sends "" on every chunk) is "not yet": a stream that has only such is INCOMPLETE_STREAM, and a call continued after one is whole', async () => {
    server.respond(
      sse(sseText([chunk({ content: 'Work' }, ''), chunk({ content: 'ing' }, '')])),
      sse(
        sseText([
          chunk(
            {
              tool_calls: [
                { index: 0, id: 'a', type: 'function', function: { name: 'x', arguments: '{"n":' } },
              ],
            },
            '',
          ),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, ''),
          chunk({}, 'tool_calls'),
        ]),
      ),
    )
    const cut = await failure()
    expect(cut.code).toBe('INCOMPLETE_STREAM')
    const step = await modelFor(server).step(simpleRequest)
    expect(step.finishReason).toBe('tool-calls')
    expect(step.message.content).toEqual([{ type: 'tool-call', id: 'a', name: 'x', arguments: '{"n":1}' }])
  })

  it('a body that ends without a finish is INCOMPLETE_STREAM; one that ends after finish_reason (no [DONE]) is fine', async () => {
    server.respond(
      sse(sseText(textChunks.slice(0, 3), { done: false })),
      sse(sseText(textChunks, { done: false })),
      sse(''),
    )
    const cut = await failure()
    expect(cut.code).toBe('INCOMPLETE_STREAM')
    expect(cut.message).toContain('ended before the model finished')
    expect((await modelFor(server).step(simpleRequest)).finishReason).toBe('stop')
    expect((await failure()).code).toBe('INCOMPLETE_STREAM')
  })

  it('an error object in the stream (JSON or an `event: error`) is PROVIDER_ERROR with the provider’s message', async () => {
    server.respond(
      sse(
        `${sseText(textChunks.slice(0, 2), { done: false })}data: ${JSON.stringify(openAiError('upstream overloaded', 'server_error'))}\n\n`,
      ),
      sse('event: error\ndata: model crashed\n\n'),
    )
    const json = await failure()
    expect(json).toMatchObject({
      code: 'PROVIDER_ERROR',
      providerMessage: 'upstream overloaded',
      providerCode: 'server_error',
    })
    expect(await failure()).toMatchObject({ code: 'PROVIDER_ERROR', providerMessage: 'model crashed' })
  })

  it('a 200 that is neither an event stream nor JSON is INVALID_RESPONSE', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<html>captive portal</html>')
    })
    const error = await failure()
    expect(error.code).toBe('INVALID_RESPONSE')
    expect(error.message).toContain('captive portal')
  })

  it('no connection is CONNECTION_FAILED', async () => {
    const closed = await startReplayServer()
    await closed.close()
    const error = await modelFor(closed)
      .step(simpleRequest)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'CONNECTION_FAILED', retryable: true })
    // undici's own message is only "fetch failed"; the reason is in its cause.
    expect((error as Error).message).toContain('ECONNREFUSED')
  })

  it('no response within timeoutMs is TIMEOUT, and the server sees the connection close', async () => {
    server.respond(() => {})
    const request = server.nextRequest()
    const error = await failure({ timeoutMs: 50 })
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true, status: undefined })
    expect(error.message).toContain('no response within 50 ms')
    await (
      await request
    ).closed
  })

  it('a stream silent for timeoutMs is TIMEOUT', async () => {
    // Headers and the first chunks leave in one write, so they arrive together however slow the machine.
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(sseText(textChunks.slice(0, 2), { done: false }))
    })
    const { parts, error } = await collectUntilError(
      modelFor(server, { timeoutMs: 200 }).stream(simpleRequest),
    )
    expect(parts).toEqual([{ type: 'text-delta', text: 'Hel' }])
    expect(error).toMatchObject({ code: 'TIMEOUT' })
    expect((error as Error).message).toContain('silent for 200 ms')
    await server.requests[0]!.closed
  })
})
