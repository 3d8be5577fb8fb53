import { describeThrown } from '../contract/results.ts'
import type { ToolExecutionInput } from '../contract/types.ts'
import { isThenable } from '../contract/is-thenable.ts'
import type { ScheduledToolDispatch, ToolRunContext } from '../contract/scheduler-types.ts'
import type { PendingResult } from './batch-state.ts'
import { dispatchGate } from './dispatch-gate.ts'
import { drive, fail, failed, notify, type BatchRun } from './batch-run.ts'

/**
 * The start side of a batch: starts the calls that may start, in model order. The mode is read
 * right before a call starts and again after every wait (T24); policy runs one call at a time;
 * dispatches overlap.
 */
export async function startCalls(run: BatchRun): Promise<void> {
  const { state, scheduler, hooks, stages } = run
  try {
    for (let index = state.nextToStart(); index !== undefined; index = state.nextToStart()) {
      const input = state.input(index)
      // T24: the mode is read right before the call starts, and again at every later attempt.
      const concurrency = scheduler.concurrency(input)
      if (!state.admits(index, concurrency, !state.closed && mayStartEarly(run, input))) {
        if (concurrency.mode === 'parallel' && concurrency.keys.length > 0) run.locks.onRelease(run.onChange)
        return
      }
      state.begin(index, concurrency)
      const started = hooks.onStart?.(index, input, concurrency.mode)
      if (isThenable(started)) await started
      if (failed(run)) return state.abandon(index)
      // awaited only when a stage of it waited for something (a listener, a guard)
      const preparing = stages.prepare(input)
      const prepared = isThenable(preparing) ? await preparing : preparing
      if (failed(run)) return state.abandon(index)
      if (prepared.stage === 'dispatch') {
        state.dispatched(index)
        const gate = hooks.onDispatch === undefined ? undefined : dispatchGate(hooks.onDispatch, index, input)
        if (gate === undefined) dispatch(run, index, prepared.run)
        else dispatchAfter(run, gate, index, prepared.run)
      } else if (prepared.stage === 'approval-pending') {
        state.suspend(index, prepared.reason)
        drive(run)
      } else settle(run, index, prepared, false)
    }
  } catch (error) {
    fail(run, error)
  }
}

function mayStartEarly(run: BatchRun, input: ToolExecutionInput): boolean {
  const { eager } = run
  if (eager === undefined) return true
  try {
    return eager(input) === true
  } catch {
    return false
  }
}

/**
 * The call's body runs once its gate opened. (The closures are made here: made in the loop of
 * `startCalls`, they would allocate a context for the loop's variables on every call.)
 */
function dispatchAfter(run: BatchRun, gate: PromiseLike<void>, index: number, context: ToolRunContext): void {
  gate.then(
    () => (failed(run) ? run.state.abandon(index) : dispatchGated(run, index, context)),
    (error: unknown) => {
      // the gate of a call refused: its body never runs, and the batch fails
      run.state.abandon(index)
      fail(run, error)
    },
  )
}

/**
 * A body that waited for its gate runs after the next calls' start attempts: what it changes as
 * it starts (a registration, a mode) must be read again before the next start (T24), as it would
 * have been had it run at once.
 */
function dispatchGated(run: BatchRun, index: number, context: ToolRunContext): void {
  dispatch(run, index, context)
  drive(run)
}

function dispatch(run: BatchRun, index: number, context: ToolRunContext): void {
  const { dispatchTo } = run
  if (dispatchTo !== undefined) {
    try {
      return dispatchTo.into(context, run.sink, index)
    } catch (error) {
      return dispatchFailed(run, index, error)
    }
  }
  let dispatching: ScheduledToolDispatch | PromiseLike<ScheduledToolDispatch>
  try {
    dispatching = run.stages.dispatch(context)
  } catch (error) {
    return dispatchFailed(run, index, error)
  }
  // a body that returned a plain value has settled already: no promise to wait for
  if (!isThenable(dispatching)) return settle(run, index, dispatching, true)
  settleWhenDispatched(run, dispatching, index)
}

/** What the dispatch of call `index` answers, once it does (its closures made here, not in `dispatch`). */
function settleWhenDispatched(
  run: BatchRun,
  dispatching: PromiseLike<ScheduledToolDispatch>,
  index: number,
): void {
  dispatching.then(
    (dispatched) => settle(run, index, dispatched, true),
    (error: unknown) => dispatchFailed(run, index, error),
  )
}

export function dispatchFailed(run: BatchRun, index: number, error: unknown): void {
  const { state } = run
  // answered by recovery already: nothing is known of its body but that
  if (state.phase(index) === 'committed')
    run.lates.report(index, { kind: 'error', message: `its dispatch failed: ${describeThrown(error)}` })
  state.abandon(index)
  fail(run, error)
}

/** `dispatched`: the candidate is what a dispatch returned (a body may have run). */
export function settle(run: BatchRun, index: number, pending: PendingResult, dispatched: boolean): void {
  const { state } = run
  const body = (pending as ScheduledToolDispatch).bodySettled
  if (body !== undefined) run.lates.watchBody(index, body)
  // Also after a failure: the claim must follow the body (recovery ignores the candidate itself).
  if (state.settle(index, pending, body !== undefined)) {
    if (!failed(run)) notify(run, run.hooks.onSettled, index, state.input(index))
  } else if (dispatched && body === undefined && state.phase(index) === 'committed') {
    // recovery answered the call while its body ran: what the body did goes out as a late outcome
    run.lates.dropped(index, pending)
  }
  drive(run)
}
