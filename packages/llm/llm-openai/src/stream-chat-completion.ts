import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { ModelRequest, ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { applyEvent } from './apply-event.ts'
import { completionAsChunk } from './completion-as-chunk.ts'
import { createChunkAssembler } from './create-chunk-assembler.ts'
import { errorFromStatus } from './error-from-status.ts'
import { ChatCompletionsError } from './errors.ts'
import type { ResolvedOptions } from './resolve-options.ts'
import { toRequestBody } from './to-request-body.ts'

/** One SSE event larger than this (characters) is a broken or hostile stream, not a model answer. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024
/** How much of an error body or an unexpected body is read for the message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

function aborted(signal: AbortSignal): ChatCompletionsError {
  return new ChatCompletionsError({
    code: 'ABORTED',
    message: 'the chat completion was aborted',
    cause: signal.reason,
  })
}

async function readText(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.byteLength
      text += decoder.decode(value, { stream: true })
      if (bytes >= maxBytes) break
    }
    return text + decoder.decode()
  } finally {
    reader.cancel().catch(() => {})
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
  if (signal?.aborted) throw aborted(signal)
  const body = JSON.stringify(toRequestBody(request, options))
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  let connected = false
  let timedOut = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (): void => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, options.timeoutMs)
  }
  const fail = (error: unknown): ChatCompletionsError => {
    if (signal?.aborted) return aborted(signal)
    if (timedOut) {
      const what = connected
        ? `the stream was silent for ${options.timeoutMs} ms`
        : `no response within ${options.timeoutMs} ms`
      return new ChatCompletionsError({
        code: 'TIMEOUT',
        message: `POST ${options.url}: ${what}`,
        cause: error,
      })
    }
    if (ChatCompletionsError.isInstance(error)) return error
    return new ChatCompletionsError(
      connected
        ? {
            code: 'CONNECTION_LOST',
            message: `POST ${options.url}: the connection dropped mid-stream: ${String(error)}`,
            cause: error,
          }
        : {
            code: 'CONNECTION_FAILED',
            message: `POST ${options.url}: could not connect: ${String(error)}`,
            cause: error,
          },
    )
  }

  // Parts already parsed are not handed out once the signal has aborted.
  function* release(parts: ModelStreamPart[]): Generator<ModelStreamPart, void, undefined> {
    for (const part of parts.splice(0, parts.length)) {
      yield part
      if (signal?.aborted) throw aborted(signal)
    }
  }

  arm()
  try {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${options.apiKey}`,
    })
    for (const [name, value] of Object.entries(options.headers)) headers.set(name, value)
    let response: Response
    try {
      response = await options.fetch(options.url, {
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
      })
    } catch (error) {
      throw fail(error)
    }
    connected = true
    arm()
    const contentType = response.headers.get('content-type') ?? ''
    if (!response.ok || response.body === null || !/event-stream|json/i.test(contentType)) {
      let text = ''
      try {
        if (response.body !== null) text = await readText(response.body, MAX_ERROR_BODY_BYTES)
      } catch (error) {
        // The status says enough; only an abort or a timeout while reading the body wins over it.
        if (signal?.aborted || timedOut) throw fail(error)
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
        parsed = JSON.parse(await readText(response.body, Number.POSITIVE_INFINITY))
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw fail(error)
        throw new ChatCompletionsError({
          code: 'INVALID_RESPONSE',
          message: `POST ${options.url}: the JSON body does not parse: ${error.message}`,
          cause: error,
        })
      }
      assembler.push(completionAsChunk(parsed), out)
      assembler.end('done', out)
      yield* release(out)
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
        throw fail(error)
      }
      arm()
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
        yield* release(out)
        if (failure !== undefined) throw failure
        if (ended) return
      }
      if (result.done) {
        assembler.end('eof', out)
        yield* release(out)
        return
      }
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
    // Closes the connection when the consumer left early; harmless once the body is consumed.
    controller.abort()
  }
}
