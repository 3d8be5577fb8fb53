import { timeOutRun } from './call-signal.ts'
import { idleTimeLeft } from './idle-timeout.ts'
import type { RunState } from './run-state.ts'

export type Settled<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'aborted' }

const toValue = <T>(value: T): Settled<T> => ({ kind: 'value', value })
const toError = (error: unknown): Settled<never> => ({ kind: 'error', error })

/** The promise's outcome as a value (never rejects). */
export function settleOf<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(toValue, toError)
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
 * Whether a stage waits out the abort grace when the caller aborts (T38): `true` (started work
 * gets to finish), `false` (nothing has started: end at once), or `'started'`, for the
 * `tools/execute` wrappers: drain only when the body had started by the time of the abort, so a
 * wrapper still waiting before next() is ended at once (T16).
 */
export type Drain = boolean | 'started'

/**
 * Races a stage's promise against the call: its caller's abort and its policy budget. With
 * `drain`, a caller's abort waits up to the abort grace for the stage (T38: started work gets to
 * finish); a budget overrun ends the stage at once. A call that cannot be aborted (no caller
 * signal, no budget running) just awaits the promise. The promise is always handled.
 */
export function raceRun<T>(run: RunState, promise: Promise<T>, drain: Drain): Promise<Settled<T>> {
  if (run.watch === undefined && run.cause === undefined && run.budgetDeadline === undefined)
    return settleOf(promise)
  return new Promise<Settled<T>>((resolve) => {
    const race = new StageRace(run, drain, resolve as (outcome: Settled<unknown>) => void)
    promise.then(
      (value) => race.settle({ kind: 'value', value }),
      (error: unknown) => race.settle({ kind: 'error', error }),
    )
    if (run.cause !== undefined) race.abort()
    else (run.races ??= new Set()).add(race)
  })
}

/**
 * The body's promise against the call's abort (with the grace, T38) and its `timeoutMs`: when the
 * time is up first, the call's signal aborts with a TimeoutError and this settles `aborted` with
 * `run.timedOutAfter` set. One timer, cleared when the body settles first; no controller of its
 * own, no listener on any signal (the pipeline's direct path for the shipped timeout, T17).
 */
export function raceBodyTimeout<T>(
  run: RunState,
  promise: Promise<T>,
  timeoutMs: number,
): Promise<Settled<T>> {
  return new Promise<Settled<T>>((resolve) => {
    const race = new StageRace(run, true, resolve as (outcome: Settled<unknown>) => void)
    promise.then(
      (value) => race.settle({ kind: 'value', value }),
      (error: unknown) => race.settle({ kind: 'error', error }),
    )
    if (run.cause !== undefined) race.abort()
    else if (run.watch !== undefined || run.budgetDeadline !== undefined) (run.races ??= new Set()).add(race)
    if (race.done) return
    const resets = run.tool?.definition.progressResetsTimeout
    if (resets !== undefined) race.startedAt = performance.now()
    const first = resets === undefined ? timeoutMs : Math.min(timeoutMs, resets.maxMs)
    race.timer = setTimeout(timeUp, first, race, timeoutMs)
  })
}

function timeUp(race: StageRace, timeoutMs: number): void {
  race.timer = undefined
  if (race.done) return
  const resets = race.run.tool?.definition.progressResetsTimeout
  if (resets !== undefined) {
    const left = idleTimeLeft({
      clock: race.run,
      timeoutMs,
      maxMs: resets.maxMs,
      startedAt: race.startedAt,
      now: performance.now(),
    })
    if (left > 0) {
      race.timer = setTimeout(timeUp, left, race, timeoutMs)
      return
    }
  }
  timeOutRun(race.run, timeoutMs)
  race.settle(ABORTED)
}

const ABORTED = Object.freeze({ kind: 'aborted' as const })

/** One stage waiting on its promise or the call's abort, whichever comes first. */
export class StageRace {
  done = false
  /** The body's timeout, when this race has one (`raceBodyTimeout`). */
  timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** When the body's timeout was armed, for a tool whose progress restarts it (T48). */
  startedAt = 0
  constructor(
    readonly run: RunState,
    readonly drain: Drain,
    readonly resolve: (outcome: Settled<unknown>) => void,
  ) {}

  settle(outcome: Settled<unknown>): void {
    if (this.done) return
    this.done = true
    if (this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    this.run.races?.delete(this)
    this.resolve(outcome)
  }

  /** The call aborted: end now, or once the grace is over when this stage drains. */
  abort(): void {
    const drains = this.drain === 'started' ? this.run.bodyPending !== undefined : this.drain
    const wait = drains ? graceFor(this.run) : undefined
    if (wait === undefined) this.settle(ABORTED)
    else void wait.then(() => this.settle(ABORTED))
  }
}

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
