import { onRunAbort } from './call-signal.ts'
import type { RunState } from './run-state.ts'

export type Settled<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'aborted' }

function settleOf<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ kind: 'value', value }),
    (error: unknown) => ({ kind: 'error', error }),
  )
}

/**
 * Settles with the promise's outcome, or with `aborted` once `signal` fires, whichever is first.
 * When the signal fires, `drain` may return a promise to keep waiting on (the abort grace): an
 * outcome that arrives before it resolves still wins. The promise is always handled, so one that
 * rejects after losing the race is never an unhandled rejection. One listener, removed on settle.
 */
export function settleOrAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  drain?: () => Promise<void> | undefined,
): Promise<Settled<T>> {
  return new Promise((resolve) => {
    let done = false
    const finish = (outcome: Settled<T>): void => {
      if (done) return
      done = true
      signal.removeEventListener('abort', onAbort)
      resolve(outcome)
    }
    const onAbort = (): void => {
      const wait = drain?.()
      if (wait === undefined) finish({ kind: 'aborted' })
      else void wait.then(() => finish({ kind: 'aborted' }))
    }
    promise.then(
      (value) => finish({ kind: 'value', value }),
      (error: unknown) => finish({ kind: 'error', error }),
    )
    if (signal.aborted) onAbort()
    else if (!done) signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Races a stage's promise against the call: its caller's abort and its policy budget. With
 * `drain`, a caller's abort waits up to the abort grace for the stage (T38: started work gets to
 * finish); a budget overrun ends the stage at once. A call that cannot be aborted (no caller
 * signal, no budget running) just awaits the promise. The promise is always handled.
 */
export function raceRun<T>(run: RunState, promise: Promise<T>, drain: boolean): Promise<Settled<T>> {
  if (run.unlink === undefined && run.cause === undefined && run.budgetDeadline === undefined)
    return settleOf(promise)
  return new Promise((resolve) => {
    // `stop` is set once the waiter is registered; an abort may already have happened by then
    const race: { done: boolean; stop: (() => void) | undefined } = { done: false, stop: undefined }
    const finish = (outcome: Settled<T>): void => {
      if (race.done) return
      race.done = true
      race.stop?.()
      resolve(outcome)
    }
    promise.then(
      (value) => finish({ kind: 'value', value }),
      (error: unknown) => finish({ kind: 'error', error }),
    )
    race.stop = onRunAbort(run, () => {
      const wait = drain ? graceFor(run) : undefined
      if (wait === undefined) finish(ABORTED)
      else void wait.then(() => finish(ABORTED))
    })
  })
}

const ABORTED: Settled<never> = Object.freeze({ kind: 'aborted' })

/** While the caller's abort drains: the grace window, shared by every stage of the call. */
export function graceFor(run: RunState): Promise<void> | undefined {
  if (run.cause !== 'caller') return undefined
  return (run.grace ??= new Promise((resolve) => {
    run.graceTimer = setTimeout(() => {
      run.graceTimer = undefined
      resolve()
    }, run.state.registry.options.abortGraceMs)
  }))
}
