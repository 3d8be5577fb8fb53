import { addRace, removeRace, timeOutRun } from './call-signal.ts'
import { idleTimeLeft } from './idle-timeout.ts'
import type { RunState } from './run-state.ts'
import type { Deadline } from '../deadlines/deadline-queue.ts'

const ABORTED = Object.freeze({ kind: 'aborted' as const })

export type Settled<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'aborted' }

const toValue = <T>(value: T): Settled<T> => ({ kind: 'value', value })
const toError = (error: unknown): Settled<never> => ({ kind: 'error', error })

/** What a stage's promise did, without the record around it (`StageRace.end`). */
export type SettledKind = Settled<unknown>['kind']

/** The record of an outcome (`payload`: the value or the error; nothing for `aborted`). */
function settledOf(kind: SettledKind, payload: unknown): Settled<unknown> {
  return kind === 'value' ? toValue(payload) : kind === 'error' ? toError(payload) : ABORTED
}

/** The value or the error an outcome carries (nothing for `aborted`). */
export function payloadOf(settled: Settled<unknown>): unknown {
  return settled.kind === 'value' ? settled.value : settled.kind === 'error' ? settled.error : undefined
}

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
    watchRace(run, new StageRace(run, drain, resolve as (outcome: Settled<unknown>) => void), promise)
  })
}

/**
 * `raceRun` for a call whose abort can come (a caller's signal followed, or aborted already), whose
 * outcome `finish` turns into the stage's answer as the race settles: one promise for the stage
 * instead of the race's and an `async` function's around it. `finish` is a module-level function
 * (no closure per call); when it throws, the promise rejects with what it threw. Drains on a
 * caller's abort (T38).
 */
export function raceRunThen<T, A, R>(
  run: RunState,
  promise: Promise<T>,
  finish: (run: RunState, kind: SettledKind, payload: unknown, extra: A) => R,
  extra: A,
): Promise<R> {
  return new Promise<R>((resolve) => {
    const race = new StageRace(run, true, resolve as (outcome: unknown) => void)
    race.finish = finish as StageRace['finish']
    race.extra = extra
    watchRace(run, race, promise)
  })
}

/**
 * `raceRunThen` for a stage whose answer nobody awaits: `finish` delivers it (into a sink), so the
 * race resolves no promise; an error `finish` throws goes to `failed` (also a module-level function).
 */
export function raceRunInto<T, A>(
  run: RunState,
  promise: Promise<T>,
  finish: (run: RunState, kind: SettledKind, payload: unknown, extra: A) => void,
  extra: A,
  failed: (run: RunState, error: unknown) => void,
): void {
  const race = new StageRace(run, true, IGNORE)
  race.finish = finish as StageRace['finish']
  race.extra = extra
  race.failed = failed
  watchRace(run, race, promise)
}

const IGNORE = (): void => {}

/**
 * Settles `race` with `promise`'s outcome, and lets the run's abort reach it (at once if aborted).
 * The outcome goes as its kind and payload: a `finish` makes no record of it.
 */
function watchRace<T>(run: RunState, race: StageRace, promise: Promise<T>): void {
  promise.then(
    (value) => race.end('value', value),
    (error: unknown) => race.end('error', error),
  )
  if (run.cause !== undefined) race.abort()
  else addRace(run, race)
}

/**
 * The body's promise against the call's abort (with the grace, T38) and its `timeoutMs`: when the
 * time is up first, the call's signal aborts with a TimeoutError and this settles `aborted` with
 * `run.timedOutAfter` set. The race itself is the deadline, in the runtime's one deadline queue
 * (no timer, controller or listener of its own), unlinked when the body settles first (the
 * pipeline's direct path for the shipped timeout, T17).
 */
export function raceBodyTimeout<T>(
  run: RunState,
  promise: Promise<T>,
  timeoutMs: number,
): Promise<Settled<T>> {
  return new Promise<Settled<T>>((resolve) => {
    const race = new TimedRace(run, true, resolve as (outcome: Settled<unknown>) => void)
    promise.then(
      (value) => race.end('value', value),
      (error: unknown) => race.end('error', error),
    )
    if (run.cause !== undefined) race.abort()
    else if (run.watch !== undefined || run.budgetDeadline !== undefined) addRace(run, race)
    if (race.done) return
    const resets = run.tool?.definition.progressResetsTimeout
    if (resets !== undefined) race.startedAt = performance.now()
    race.timeoutMs = timeoutMs
    run.state.registry.deadlines.arm(
      race,
      resets === undefined ? timeoutMs : Math.min(timeoutMs, resets.maxMs),
    )
  })
}

/**
 * One stage waiting on its promise or the call's abort, whichever comes first. A body with a
 * timeout races it too (`TimedRace`): the fields of the deadline queue are only on such a race, so
 * the race of every other stage is smaller (one per call) and its fields never hold a double.
 */
export class StageRace {
  done = false
  /** Turns the outcome into what the race resolves with (`raceRunThen`); absent: the outcome itself. */
  finish: ((run: RunState, kind: SettledKind, payload: unknown, extra: unknown) => unknown) | undefined =
    undefined
  /** What `finish` is given besides the outcome (a module-level `finish` needs no closure per call). */
  extra: unknown = undefined
  /** Where an error `finish` throws goes (`raceRunInto`); absent: the race's promise rejects with it. */
  failed: ((run: RunState, error: unknown) => void) | undefined = undefined
  constructor(
    readonly run: RunState,
    readonly drain: Drain,
    readonly resolve: (outcome: Settled<unknown>) => void,
  ) {}

  /** Settles with `outcome`, or with nothing if the race has settled already. */
  settle(outcome: Settled<unknown>): void {
    this.end(outcome.kind, payloadOf(outcome))
  }

  /**
   * `settle` by kind and payload (the value or the error): a race with a `finish` (the body's, once
   * per call of a batch) hands them on as they are, and only a race resolved with the outcome
   * itself makes its record.
   */
  end(kind: SettledKind, payload: unknown): void {
    if (this.done) return
    this.done = true
    removeRace(this.run, this)
    const { finish } = this
    if (finish === undefined) return this.resolve(settledOf(kind, payload))
    let answer: unknown
    try {
      answer = finish(this.run, kind, payload, this.extra)
    } catch (error) {
      if (this.failed !== undefined) return this.failed(this.run, error)
      // the stage's promise rejects with it, as an `async` stage's would
      answer = Promise.reject(error)
    }
    this.resolve(answer as Settled<unknown>)
  }

  /** The call aborted: end now, or once the grace is over when this stage drains. */
  abort(): void {
    const drains = this.drain === 'started' ? this.run.bodyPending !== undefined : this.drain
    const wait = drains ? graceFor(this.run) : undefined
    if (wait === undefined) this.settle(ABORTED)
    else void wait.then(() => this.settle(ABORTED))
  }
}

/** A body's race against its `timeoutMs` as well (`raceBodyTimeout`): the race is the deadline. */
class TimedRace extends StageRace implements Deadline {
  /** The body's `timeoutMs`. */
  timeoutMs = 0
  /** When the body's timeout was armed, for a tool whose progress restarts it (T48). */
  startedAt = 0
  // its place in the deadline queue while its timeout is armed
  deadlineAt = 0
  deadlinePrev: Deadline | undefined = undefined
  deadlineNext: Deadline | undefined = undefined
  deadlineList: Deadline['deadlineList'] = undefined

  override end(kind: SettledKind, payload: unknown): void {
    if (!this.done && this.deadlineList !== undefined) this.run.state.registry.deadlines.disarm(this)
    super.end(kind, payload)
  }

  /** The body's timeout is up (T17), unless progress restarted it (T48): then it is armed again. */
  expire(): void {
    if (this.done) return
    const { run, timeoutMs } = this
    const resets = run.tool?.definition.progressResetsTimeout
    if (resets !== undefined) {
      const left = idleTimeLeft({
        clock: run,
        timeoutMs,
        maxMs: resets.maxMs,
        startedAt: this.startedAt,
        now: performance.now(),
      })
      if (left > 0) return run.state.registry.deadlines.arm(this, left)
    }
    timeOutRun(run, timeoutMs)
    this.settle(ABORTED)
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
