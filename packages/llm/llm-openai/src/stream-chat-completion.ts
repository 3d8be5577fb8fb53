import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { describeValue, type ModelRequest, type ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { applyEvent } from './apply-event.ts'
import { completionAsChunk } from './completion-as-chunk.ts'
import { createChunkAssembler } from './create-chunk-assembler.ts'
import { abortedError, createRequestLifetime } from './create-request-lifetime.ts'
import { errorFromStatus } from './error-from-status.ts'
import { ChatCompletionsError } from './errors.ts'
import { readText } from './read-text.ts'
import type { ResolvedOptions } from './resolve-options.ts'
import { toRequestBody } from './to-request-body.ts'

/** One SSE event larger than this (characters) is a broken or hostile stream, not a model answer. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024
/** How much of an error body or an unexpected body is read for the message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

function serialize(request: ModelRequest, options: ResolvedOptions): string {
  const body = toRequestBody(request, options)
  try {
    return JSON.stringify(body)
  } catch (error) {
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `the request is not JSON data: ${error instanceof Error ? error.message : describeValue(error)}`,
      cause: error,
    })
  }
}

/**
 * One streamed chat completion as `ModelStreamPart`s. The request starts at the first `next()`.
 * The request's signal, the consumer leaving early (`return()`), and `timeoutMs` of silence all
 * close the HTTP connection; every failure is a `ChatCompletionsError` with a stable code.
 */
export async function* streamChatCompletion(
  options: ResolvedOptions,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const signal = request.signal
  if (signal?.aborted) throw abortedError(signal)
  const body = serialize(request, options)
  const lifetime = createRequestLifetime({ url: options.url, timeoutMs: options.timeoutMs, signal })
  lifetime.arm()
  // Set once `[DONE]` was read: the rest of the body is read in the background, not waited for.
  let complete: ReadableStreamDefaultReader<Uint8Array> | undefined
  try {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(options.keyHeader === 'api-key'
        ? { 'api-key': options.apiKey }
        : { authorization: `Bearer ${options.apiKey}` }),
    })
    for (const [name, value] of Object.entries(options.headers)) headers.set(name, value)
    let response: Response
    try {
      // Redirects are not followed: a POST turned into a GET, or a key sent to another host, is worse
      // than an error that names the new location.
      response = await options.fetch(options.url, {
        method: 'POST',
        headers,
        body,
        signal: lifetime.signal,
        redirect: 'manual',
      })
    } catch (error) {
      throw lifetime.fail(error)
    }
    lifetime.connected()
    lifetime.arm()
    const contentType = response.headers.get('content-type') ?? ''
    if (!response.ok || response.body === null || !/event-stream|json/i.test(contentType)) {
      let text = ''
      try {
        if (response.body !== null) text = await readText(response.body, MAX_ERROR_BODY_BYTES, lifetime.arm)
      } catch (error) {
        // The status says enough; only an abort or a timeout while reading the body wins over it.
        const failure = lifetime.fail(error)
        if (failure.code === 'ABORTED' || failure.code === 'TIMEOUT') throw failure
      }
      if (!response.ok) {
        throw errorFromStatus({
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: text,
          url: options.url,
          model: options.model,
        })
      }
      throw new ChatCompletionsError({
        code: 'INVALID_RESPONSE',
        message: `POST ${options.url} answered HTTP ${response.status} with content-type ${JSON.stringify(contentType)} instead of an event stream: ${JSON.stringify(text.slice(0, 200))}`,
      })
    }

    const assembler = createChunkAssembler()
    const out: ModelStreamPart[] = []
    if (!/event-stream/i.test(contentType)) {
      // A server that ignored `stream: true` and answered with one JSON completion.
      let parsed: unknown
      try {
        parsed = JSON.parse(await readText(response.body, Number.POSITIVE_INFINITY, lifetime.arm))
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw lifetime.fail(error)
        throw new ChatCompletionsError({
          code: 'INVALID_RESPONSE',
          message: `POST ${options.url}: the JSON body does not parse: ${error.message}`,
          cause: error,
        })
      }
      assembler.push(completionAsChunk(parsed), out)
      assembler.end('done', out)
      for (const part of out) yield part
      return
    }

    const events: EventSourceMessage[] = []
    let overflow = false
    const parser = createParser({
      onEvent: (event) => void events.push(event),
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') overflow = true
      },
      maxBufferSize: MAX_EVENT_CHARS,
    })
    const decoder = new TextDecoder('utf-8', { fatal: true })
    const reader = response.body.getReader()
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>
      try {
        result = await reader.read()
      } catch (error) {
        throw lifetime.fail(error)
      }
      lifetime.arm()
      let chars: string
      try {
        chars = result.done ? decoder.decode() : decoder.decode(result.value, { stream: true })
      } catch (error) {
        throw new ChatCompletionsError({
          code: 'MALFORMED_STREAM',
          message: 'the event stream is not valid UTF-8',
          cause: error,
        })
      }
      if (chars !== '') parser.feed(chars)
      if (overflow) {
        throw new ChatCompletionsError({
          code: 'MALFORMED_STREAM',
          message: `an event of the stream exceeds ${MAX_EVENT_CHARS} characters`,
        })
      }
      // Each event's parts leave before the next event is applied, so a failure later in the same
      // network read never hides a tool call that was already complete.
      for (const event of events.splice(0, events.length)) {
        let ended = false
        let failure: unknown
        try {
          ended = applyEvent(event, assembler, out)
        } catch (error) {
          failure = error
        }
        // `[DONE]` ends the answer even when the server keeps the connection open: the finish part
        // leaves now, and the end of the body is read in the background (connection reuse).
        if (ended && failure === undefined) complete = reader
        // Parts already parsed are not handed out once the signal has aborted.
        for (let i = 0; i < out.length; i++) {
          yield out[i]!
          if (signal?.aborted) throw abortedError(signal)
        }
        out.length = 0
        if (failure !== undefined) throw failure
        if (ended) return
      }
      if (result.done) {
        assembler.end('eof', out)
        for (const part of out) yield part
        return
      }
    }
  } finally {
    // An error, an abort or a consumer that left early closes the connection now.
    if (complete !== undefined && signal?.aborted !== true) lifetime.release(complete)
    else lifetime.close()
  }
}
