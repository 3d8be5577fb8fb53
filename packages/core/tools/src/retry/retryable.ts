const RETRYABLE = Symbol.for('@deepseek-ai/dsh.retryable')

/** An error a body marked as worth another attempt (`retryable`). */
export interface RetryableError extends Error {
  readonly retryable: true
  /** How long to wait before the next attempt, when the failing service said so. */
  readonly retryAfterMs: number | undefined
}

/**
 * Marks a failure as transient: `withRetry` runs the body again after it (an error without the
 * mark is final). Returns a new `Error` whose `cause` is `error` and whose message is its message.
 * `retryAfterMs` replaces the backoff for the next wait (a `Retry-After` the service sent).
 * @example throw retryable(new Error('HTTP 503'), { retryAfterMs: 1_000 })
 */
export function retryable(error: unknown, options: { readonly retryAfterMs?: number } = {}): RetryableError {
  const message = error instanceof Error ? error.message : String(error)
  const marked = new Error(message, { cause: error }) as Error & {
    retryable: true
    retryAfterMs: number | undefined
  }
  marked.name = 'RetryableError'
  marked.retryable = true
  const after = options.retryAfterMs
  marked.retryAfterMs = typeof after === 'number' && Number.isFinite(after) && after >= 0 ? after : undefined
  Object.defineProperty(marked, RETRYABLE, { value: true })
  return marked
}

/**
 * Whether `error` says it is worth another attempt: `retryable === true` on the error (set by
 * `retryable()`, and by clients that follow the same convention, such as `ChatCompletionsError`),
 * with its `retryAfterMs` when it is a non-negative number. Never throws (a hostile getter reads as
 * not retryable).
 */
export function readRetryable(error: unknown): {
  readonly retryable: boolean
  readonly retryAfterMs: number | undefined
} {
  try {
    if (typeof error !== 'object' || error === null) return { retryable: false, retryAfterMs: undefined }
    const { retryable: flag, retryAfterMs } = error as { retryable?: unknown; retryAfterMs?: unknown }
    const after =
      typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0
        ? retryAfterMs
        : undefined
    return { retryable: flag === true, retryAfterMs: after }
  } catch {
    return { retryable: false, retryAfterMs: undefined }
  }
}
