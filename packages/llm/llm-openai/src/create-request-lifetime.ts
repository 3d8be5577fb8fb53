import { describeValue } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'

/** After `[DONE]`, how long the end of the body may take before the connection is simply closed. */
const AFTER_DONE_GRACE_MS = 1000

export interface RequestLifetime {
  /** Passed to `fetch`: aborts on the caller's signal, on silence, and on `close()`. */
  readonly signal: AbortSignal
  /** Restarts the silence timer (called on every network read). */
  arm(): void
  /** From now on failures are `CONNECTION_LOST`, not `CONNECTION_FAILED`. */
  connected(): void
  /** Maps whatever `fetch` or the body threw: `ABORTED`, `TIMEOUT`, or a connection error. */
  fail(error: unknown): ChatCompletionsError
  /**
   * Ends a request whose answer is complete (`[DONE]` was read) without waiting for the rest of
   * the body: the caller's signal is forgotten and the timer stopped at once, while what follows
   * `[DONE]` is read in the background (for at most `AFTER_DONE_GRACE_MS`, a timer that does not
   * keep the process alive), so a connection the server ends goes back to the pool, and one it
   * keeps open is closed after the grace period. Errors there do not matter.
   */
  release(reader: ReadableStreamDefaultReader<Uint8Array>): void
  /** Ends the request: stops the timer, forgets the signal, closes the connection. */
  close(): void
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`: undici hides the useful part in `cause`. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return describeValue(error)
  const cause: unknown = error.cause
  if (!(cause instanceof Error) || cause.message === '' || cause.message === error.message)
    return error.message
  return `${error.message} (${cause.message})`
}

export function abortedError(signal: AbortSignal): ChatCompletionsError {
  return new ChatCompletionsError({
    code: 'ABORTED',
    message: 'the chat completion was aborted',
    cause: signal.reason,
  })
}

/** The abort, timeout and connection bookkeeping of one request to `url`. */
export function createRequestLifetime(options: {
  readonly url: string
  readonly timeoutMs: number
  readonly signal: AbortSignal | undefined
}): RequestLifetime {
  const { url, timeoutMs, signal } = options
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  let isConnected = false
  let timedOut = false
  let timer: ReturnType<typeof setTimeout> | undefined

  const arm = (): void => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
  }

  return {
    signal: controller.signal,
    arm,
    connected: () => {
      isConnected = true
    },
    fail(error) {
      if (signal?.aborted) return abortedError(signal)
      if (timedOut) {
        const what = isConnected
          ? `the stream was silent for ${timeoutMs} ms`
          : `no response within ${timeoutMs} ms`
        return new ChatCompletionsError({ code: 'TIMEOUT', message: `POST ${url}: ${what}`, cause: error })
      }
      if (ChatCompletionsError.isInstance(error)) return error
      return isConnected
        ? new ChatCompletionsError({
            code: 'CONNECTION_LOST',
            message: `POST ${url}: the connection dropped mid-stream: ${describeNetworkError(error)}`,
            cause: error,
          })
        : new ChatCompletionsError({
            code: 'CONNECTION_FAILED',
            message: `POST ${url}: could not connect: ${describeNetworkError(error)}`,
            cause: error,
          })
    },
    release(reader) {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const grace = setTimeout(() => controller.abort(), AFTER_DONE_GRACE_MS)
      grace.unref?.()
      const drain = async (): Promise<void> => {
        while (!(await reader.read()).done) {
          /* bytes after [DONE] carry nothing */
        }
      }
      drain()
        .catch(() => {
          /* the answer is complete; a connection that fails now only costs its reuse */
        })
        .finally(() => {
          clearTimeout(grace)
          controller.abort()
        })
    },
    close() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      controller.abort()
    },
  }
}
