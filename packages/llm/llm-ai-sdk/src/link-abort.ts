import { AiSdkError } from './errors.ts'

export interface AbortLink {
  /** Given to the provider as `abortSignal`: aborts with the caller's signal and on `close()`. */
  readonly signal: AbortSignal
  /**
   * Settles like `promise`, or rejects with `ABORTED` as soon as the caller's signal aborts, also
   * when the provider ignores its `abortSignal` and `promise` never settles.
   */
  race<T>(promise: PromiseLike<T>): Promise<T>
  /** Forgets the caller's signal and aborts the provider's (a no-op after a finished call). */
  close(): void
}

export function abortedError(signal: AbortSignal): AiSdkError {
  return new AiSdkError({ code: 'ABORTED', message: 'the model call was aborted', cause: signal.reason })
}

/** Ties one model call to the request's signal. */
export function linkAbort(signal: AbortSignal | undefined): AbortLink {
  const controller = new AbortController()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    if (signal === undefined) return
    onAbort = () => {
      controller.abort(signal.reason)
      reject(abortedError(signal))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  // Nobody may be racing when the signal aborts: that rejection is handled by whoever races next.
  aborted.catch(() => {})
  return {
    signal: controller.signal,
    race: (promise) => Promise.race([Promise.resolve(promise), aborted]),
    close: () => {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
      controller.abort()
    },
  }
}
