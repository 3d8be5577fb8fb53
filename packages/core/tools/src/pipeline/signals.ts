const NEVER_ABORTED = new AbortController().signal

/** The caller's signal, or one that never aborts. */
export function signalOrNever(signal: AbortSignal | undefined): AbortSignal {
  return signal ?? NEVER_ABORTED
}

/**
 * The signal the body gets when a wrapper replaced it: it aborts when either the caller's or the
 * replacement aborts, so no wrapper can detach the caller's cancellation.
 */
export function fuseSignals(caller: AbortSignal, replacement: AbortSignal | undefined): AbortSignal {
  if (replacement === undefined || replacement === caller || caller === NEVER_ABORTED)
    return replacement ?? caller
  return AbortSignal.any([caller, replacement])
}

export type Settled<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'aborted' }

/**
 * Settles with the promise's outcome, or with `aborted` as soon as `signal` fires, whichever is first.
 * `onLate` learns how a promise that lost the race settled, so discarded results can be reported.
 */
export function settleOrAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  onLate: (late: Settled<T>) => void,
): Promise<Settled<T>> {
  if (signal === NEVER_ABORTED) {
    return promise.then(
      (value) => ({ kind: 'value', value }),
      (error: unknown) => ({ kind: 'error', error }),
    )
  }
  if (signal.aborted) {
    promise.then(
      (value) => onLate({ kind: 'value', value }),
      (error: unknown) => onLate({ kind: 'error', error }),
    )
    return Promise.resolve({ kind: 'aborted' })
  }
  return new Promise((resolve) => {
    let done = false
    const onAbort = (): void => {
      if (done) return
      done = true
      resolve({ kind: 'aborted' })
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        if (done) return onLate({ kind: 'value', value })
        done = true
        signal.removeEventListener('abort', onAbort)
        resolve({ kind: 'value', value })
      },
      (error: unknown) => {
        if (done) return onLate({ kind: 'error', error })
        done = true
        signal.removeEventListener('abort', onAbort)
        resolve({ kind: 'error', error })
      },
    )
  })
}
