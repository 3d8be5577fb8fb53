import type { CallId } from '@deepseek-ai/dsh-llm'
import { callRef } from '../contract/clip.ts'
import type { RegistryState } from '../registry/scope-state.ts'

/**
 * A call's cancellation, in one room: the caller's signal it follows, its own signal, the policy
 * budget that bounds its plugin stages, the body's timeout, and the stages racing its abort. It
 * works on the fields of a run that cancellation owns (`RunState` implements this), so nothing
 * here needs the run's other stages.
 */
export interface CancellableRun {
  readonly callId: CallId
  readonly toolName: string
  readonly state: { readonly registry: RegistryState }
  readonly stage: string
  controller: AbortController | undefined
  cause: AbortCause | undefined
  callerReason: unknown
  watch: CallerWatch | undefined
  /** Its neighbours among the calls in flight on `watch` (a list through the runs: no set per call). */
  watchPrev: CancellableRun | undefined
  watchNext: CancellableRun | undefined
  waiters: (() => void)[] | undefined
  race: AbortableRace | undefined
  races: Set<AbortableRace> | undefined
  timedOutAfter: number | undefined
  graceTimer: ReturnType<typeof setTimeout> | undefined
  budgetDeadline: number | undefined
  budgetPausedAt: number | undefined
}

/** A stage racing the call's abort (signals.ts): aborting the call ends the race. */
export interface AbortableRace {
  abort(): void
}

/** Registers `race` as racing the call's abort (`run.race`, or `run.races` when that is taken). */
export function addRace(run: CancellableRun, race: AbortableRace): void {
  if (run.race === undefined) run.race = race
  else (run.races ??= new Set()).add(race)
}

/** `race` ended: it no longer races the call's abort. */
export function removeRace(run: CancellableRun, race: AbortableRace): void {
  if (run.race === race) run.race = undefined
  else run.races?.delete(race)
}

/**
 * Why a call's own signal aborted: the caller's signal fired, or the call ran out of its policy
 * budget (`policyTimeoutMs`, below).
 */
export type AbortCause = 'caller' | 'deadline'

/**
 * One call, one controller (issue 8 items 7, 8). The caller's signal, which may be long-lived and
 * shared by many calls, is never handed to `AbortSignal.any`: the calls in flight on it share one
 * abort listener (added with the first, removed with the last), so no concurrency level reaches
 * Node's listener warning and nothing stays attached once the calls are answered. The controller
 * is created on first use, so a call nobody asks a signal of (the hot path) allocates none.
 */
export function runSignal(run: CancellableRun): AbortSignal {
  let controller = run.controller
  if (controller === undefined) {
    controller = run.controller = new AbortController()
    if (run.cause !== undefined) controller.abort(abortReason(run))
    else if (run.timedOutAfter !== undefined) controller.abort(timeoutReason(run.timedOutAfter))
  }
  return controller.signal
}

/**
 * The calls in flight on one caller signal. Created once per signal and kept with it (a weak-map
 * entry costs more than everything else a call does here): its listener is attached while calls are
 * in flight and removed when the last one is answered, so nothing stays on the signal in between.
 * The calls are a doubly linked list through their runs (`watchPrev`, `watchNext`): following a
 * signal costs a call two fields, not an entry in a set.
 */
export interface CallerWatch {
  readonly signal: AbortSignal
  /** The calls in flight, oldest first (aborted in that order), undefined when none is. */
  head: CancellableRun | undefined
  tail: CancellableRun | undefined
  readonly onAbort: () => void
  attached: boolean
}

const watched = new WeakMap<AbortSignal, CallerWatch>()

function watchOf(caller: AbortSignal): CallerWatch {
  // the lookup alone on the hot path: the closure of a new watch lives in a function of its own, so
  // a call that finds its watch allocates no context for it
  return watched.get(caller) ?? newWatch(caller)
}

function newWatch(caller: AbortSignal): CallerWatch {
  const watch: CallerWatch = {
    signal: caller,
    head: undefined,
    tail: undefined,
    onAbort: () => {
      watch.attached = false
      // taken off the signal first, all of them: aborting one runs code that may link or unlink others
      const aborted: CancellableRun[] = []
      for (let each = watch.head; each !== undefined; each = each.watchNext) aborted.push(each)
      watch.head = watch.tail = undefined
      for (const each of aborted) {
        each.watch = undefined
        each.watchPrev = each.watchNext = undefined
      }
      for (const each of aborted) abortRun(each, 'caller', caller.reason)
    },
    attached: false,
  }
  watched.set(caller, watch)
  return watch
}

/** Follows the caller's signal for the lifetime of the call (until `releaseRun`). */
export function linkCaller(run: CancellableRun, caller: AbortSignal | undefined): void {
  if (caller === undefined) return
  if (caller.aborted) {
    run.cause = 'caller'
    run.callerReason = caller.reason
    return
  }
  const watch = watchOf(caller)
  const tail = watch.tail
  run.watchPrev = tail
  if (tail === undefined) watch.head = run
  else tail.watchNext = run
  watch.tail = run
  run.watch = watch
  if (!watch.attached) {
    watch.attached = true
    caller.addEventListener('abort', watch.onAbort, { once: true })
  }
}

/** Stops following the caller's signal; the last call in flight on it removes the listener. */
export function unlinkCaller(run: CancellableRun): void {
  const watch = run.watch
  if (watch === undefined) return
  run.watch = undefined
  const { watchPrev: prev, watchNext: next } = run
  if (prev === undefined) watch.head = next
  else prev.watchNext = next
  if (next === undefined) watch.tail = prev
  else next.watchPrev = prev
  run.watchPrev = run.watchNext = undefined
  if (watch.head === undefined && watch.attached) {
    watch.attached = false
    watch.signal.removeEventListener('abort', watch.onAbort)
  }
}

export function abortRun(run: CancellableRun, cause: AbortCause, reason?: unknown): void {
  if (run.cause !== undefined) return
  run.cause = cause
  run.callerReason = reason
  unlinkCaller(run)
  run.controller?.abort(abortReason(run))
  const race = run.race
  const races = run.races
  run.race = undefined
  run.races = undefined
  race?.abort()
  if (races !== undefined) for (const each of races) each.abort()
  const waiters = run.waiters
  run.waiters = undefined
  if (waiters !== undefined) for (const wake of waiters) wake()
}

/**
 * Calls `wake` once when the call aborts (at once if it already has). Stages race the call this
 * way rather than through its `AbortSignal`, which then only exists when someone asks for it.
 * Returns the function that stops waiting.
 */
export function onRunAbort(run: CancellableRun, wake: () => void): () => void {
  if (run.cause !== undefined) {
    wake()
    return () => {}
  }
  const waiters = (run.waiters ??= [])
  waiters.push(wake)
  return () => {
    const index = waiters.indexOf(wake)
    if (index >= 0) waiters.splice(index, 1)
  }
}

/** Called once the call has its result: nothing of the call stays attached to the caller's signal. */
export function releaseRun(run: CancellableRun): void {
  unlinkCaller(run)
  endBudget(run)
  if (run.graceTimer !== undefined) clearTimeout(run.graceTimer)
  run.graceTimer = undefined
}

/**
 * The body ran past `timeoutMs`: its signal (the call's own, created now or already read) aborts with
 * a TimeoutError. The call itself is not aborted: what comes after the body (post-execute) runs as
 * for any other result.
 */
export function timeOutRun(run: CancellableRun, timeoutMs: number): void {
  if (run.timedOutAfter !== undefined) return
  run.timedOutAfter = timeoutMs
  const controller = run.controller
  if (controller !== undefined && !controller.signal.aborted) controller.abort(timeoutReason(timeoutMs))
}

export function timeoutReason(timeoutMs: number): DOMException {
  return new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')
}

export function abortReason(run: CancellableRun): unknown {
  if (run.cause === 'deadline') {
    return new DOMException(
      `${callRef(run.toolName, run.callId)} ran out of its ${run.state.registry.options.policyTimeoutMs} ms policy budget`,
      'TimeoutError',
    )
  }
  return run.callerReason ?? new DOMException('This operation was aborted', 'AbortError')
}

/**
 * Makes `target` abort when `source` does, until the returned function unlinks them. Used for a
 * body whose signal a wrapper replaced: it aborts on the call's signal or the replacement.
 */
export function linkAbort(target: AbortController, source: AbortSignal): () => void {
  if (source.aborted) {
    target.abort(source.reason)
    return () => {}
  }
  const onAbort = (): void => target.abort(source.reason)
  source.addEventListener('abort', onAbort, { once: true })
  return () => source.removeEventListener('abort', onAbort)
}

// --- the policy budget

/**
 * The policy budget (`policyTimeoutMs`): the time a call may spend in plugin code around its body
 * (pre-execute listeners, guards, wrappers before and after `next`, post-execute listeners). It is
 * paused while the body runs (bounded by `timeoutMs` instead) and while a person answers an
 * approval, so every call has a deadline of `timeoutMs` + the budget and nothing a plugin does can
 * hold it forever. Started at the first plugin stage: a call with no listeners never starts it.
 *
 * One sweeper per runtime, not one timer per call: it ticks every eighth of the budget (at most
 * every 5 s) while calls have a budget running and ends those past their deadline, at most one tick
 * late. Its timer does not keep the process alive by itself (a harness has its own I/O; a script
 * whose only pending work is a hung hook may exit rather than wait out the budget).
 */
export function startBudget(run: CancellableRun): void {
  if (run.budgetDeadline !== undefined) return resumeBudget(run)
  const registry = run.state.registry
  run.budgetDeadline = Date.now() + registry.options.policyTimeoutMs
  watch(registry, run)
}

export function pauseBudget(run: CancellableRun): void {
  if (run.budgetDeadline !== undefined && run.budgetPausedAt === undefined) run.budgetPausedAt = Date.now()
}

export function resumeBudget(run: CancellableRun): void {
  const pausedAt = run.budgetPausedAt
  if (pausedAt === undefined || run.budgetDeadline === undefined) return
  run.budgetPausedAt = undefined
  run.budgetDeadline += Date.now() - pausedAt
}

/** The call has its result: the sweeper forgets it. */
export function endBudget(run: CancellableRun): void {
  if (run.budgetDeadline === undefined) return
  sweepers.get(run.state.registry)?.runs.delete(run)
}

interface BudgetSweeper {
  readonly runs: Set<CancellableRun>
  timer: ReturnType<typeof setTimeout> | undefined
}

/**
 * The sweeper of each runtime, kept by the pipeline rather than in the registry's state: it is
 * looked up when a call starts or ends a budget, never on a call without plugin stages.
 */
const sweepers = new WeakMap<RegistryState, BudgetSweeper>()

function watch(registry: RegistryState, run: CancellableRun): void {
  let sweeper = sweepers.get(registry)
  if (sweeper === undefined) sweepers.set(registry, (sweeper = { runs: new Set(), timer: undefined }))
  sweeper.runs.add(run)
  if (sweeper.timer === undefined) arm(registry, sweeper)
}

function arm(registry: RegistryState, sweeper: BudgetSweeper): void {
  const every = Math.min(5_000, Math.max(10, Math.floor(registry.options.policyTimeoutMs / 8)))
  sweeper.timer = setTimeout(() => sweep(registry, sweeper), every)
  sweeper.timer.unref?.()
}

function sweep(registry: RegistryState, sweeper: BudgetSweeper): void {
  sweeper.timer = undefined
  const now = Date.now()
  for (const run of sweeper.runs) {
    if (run.stage === 'finished') sweeper.runs.delete(run)
    else if (run.budgetPausedAt === undefined && now >= (run.budgetDeadline ?? Infinity)) {
      sweeper.runs.delete(run)
      abortRun(run, 'deadline')
    }
  }
  if (sweeper.runs.size > 0) arm(registry, sweeper)
}
