/** How a retry waits: resolves after `ms`, rejects with the signal's reason when it aborts first. */
export type RetrySleep = (ms: number, signal: AbortSignal | undefined) => Promise<void>

/** The default `RetrySleep`: one timer, removed (with its abort listener) whichever comes first. */
export const abortableSleep: RetrySleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
