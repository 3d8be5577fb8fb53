/**
 * A virtual clock for recording sessions with realistic, deterministic timings: tool bodies `sleep`
 * on virtual timers, the session's clock reads virtual time, and `run` advances time from timer to
 * timer, each time only once everything else has settled. The same script always records the same
 * times, however busy the machine is.
 */
export interface VirtualTime {
  /** For `openJsonlSession(path, { clock })`. */
  readonly clock: () => Date
  /** Milliseconds since the start. */
  now(): number
  /** Resolves after `ms` of virtual time; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** Runs `action` when virtual time reaches `at` (ms since the start). */
  at(at: number, action: () => void): void
  /** Drives virtual time until `work` settles, and returns what it resolved to. */
  run<T>(work: Promise<T>): Promise<T>
}

interface Timer {
  readonly at: number
  readonly order: number
  readonly fire: () => void
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
const realPause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
/** Real time a run may take at most (a hang guard, not a measurement). */
const GIVE_UP_MS = 60_000

export function createVirtualTime(startEpochMs: number): VirtualTime {
  let now = 0
  let order = 0
  const timers: Timer[] = []
  const add = (at: number, fire: () => void): Timer => {
    const timer = { at, order: order++, fire }
    timers.push(timer)
    return timer
  }
  return {
    clock: () => new Date(startEpochMs + now),
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        const onAbort = (): void => {
          const index = timers.indexOf(timer)
          if (index >= 0) timers.splice(index, 1)
          reject(signal!.reason)
        }
        const timer = add(now + ms, () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        })
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
    at(at, action) {
      add(at, action)
    },
    async run<T>(work: Promise<T>): Promise<T> {
      let done = false
      let value: unknown
      let failure: unknown
      let failed = false
      work.then(
        (result) => ((done = true), (value = result)),
        (error: unknown) => ((done = true), (failed = true), (failure = error)),
      )
      const started = Date.now()
      for (;;) {
        await settle()
        await settle()
        if (done) break
        if (timers.length > 0) {
          timers.sort((a, b) => a.at - b.at || a.order - b.order)
          const next = timers.shift()!
          now = Math.max(now, next.at)
          next.fire()
          continue
        }
        // Nothing virtual is pending: something waits on a real timer (an abort grace period).
        if (Date.now() - started > GIVE_UP_MS) throw new Error('virtual time: the run never finished')
        await realPause(5)
      }
      if (failed) throw failure
      return value as T
    },
  }
}
