/**
 * Runs `request` with a signal of its own that the call's signal (and the clock's) abort while it
 * runs. The SDK never removes the abort listener it adds, and the call's signal may be the caller's
 * long-lived one: linked only while the request runs, a later abort of the caller's signal sends
 * no cancellation for a request that already finished.
 */
export async function withOwnSignal<T>(
  signal: AbortSignal,
  clock: AbortSignal | undefined,
  request: (own: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController()
  const forward = (): void => own.abort(signal.reason)
  const expire = (): void => own.abort(clock?.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  clock?.addEventListener('abort', expire, { once: true })
  try {
    return await request(own.signal)
  } finally {
    signal.removeEventListener('abort', forward)
    clock?.removeEventListener('abort', expire)
  }
}
