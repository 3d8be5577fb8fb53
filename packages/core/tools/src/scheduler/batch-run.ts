import type { ToolExecutionInput } from '../contract/types.ts'
import type { ToolBatchHooks, ToolBatchOutcome } from '../contract/batch-types.ts'
import type { DirectToolStages, DispatchSink } from '../contract/scheduler-types.ts'
import { isThenable } from '../contract/is-thenable.ts'
import type { BatchSignals } from './batch-signals.ts'
import type { KeyLocks } from './key-locks.ts'
import type { LateReports } from './late-reports.ts'
import type { Committer } from './run-commit-step.ts'

/**
 * One batch in flight: everything its driver works with, one record per batch. The driver's steps
 * are module-level functions taking this record (`batch-start.ts`, `batch-commit.ts`), not closures
 * made per batch: a closure made per step is a new function object each time, and V8 was found
 * re-optimizing the same per-step closures after a window of other work (issue 26, the Code Mode
 * order effect). The record is also the commit side's `Committer`.
 */
export interface BatchRun extends Committer {
  readonly hooks: ToolBatchHooks
  readonly eager: ((input: ToolExecutionInput) => boolean) | undefined
  readonly locks: KeyLocks
  readonly signals: BatchSignals
  readonly lates: LateReports
  /** The batch's abort signal (the caller's), if any. */
  readonly caller: AbortSignal | undefined
  /**
   * The runtime's dispatch answering into this batch (no promise, no closure per call), while
   * `dispatch` is still the stage it stands for: a stand-in for `dispatch` is never bypassed.
   */
  readonly dispatchTo: NonNullable<DirectToolStages['dispatchTo']> | undefined
  /** Where `dispatchTo` answers. */
  readonly sink: DispatchSink
  readonly resolveOutcome: (outcome: ToolBatchOutcome) => void
  /** `step` of this batch, as the callback a resolved promise runs (made once per batch). */
  readonly look: () => void
  /** `fail` of this batch, as a rejection handler (made once per batch). */
  readonly onFail: (error: unknown) => void
  /** `drive` of this batch, as a callback (made once per batch). */
  readonly onChange: () => void
  /** The outcome has settled. */
  finished: boolean
  /** A look at what may happen next is queued. */
  driving: boolean
  /** `commitCalls` is running. */
  committing: boolean
}

const RESOLVED = Promise.resolve()

/**
 * Coalesces every change of one turn of the event loop into one look at what may happen next.
 * A resolved promise's reaction rather than `queueMicrotask`, which wraps every callback in an
 * async resource on Node (several times the cost of the reaction).
 */
export function drive(run: BatchRun): void {
  if (run.driving) return
  run.driving = true
  void RESOLVED.then(run.look)
}

export function failed(run: BatchRun): boolean {
  return run.state.stop?.kind === 'failed'
}

/** The batch fails: every call still unanswered is aborted, and recovery answers them (T13, T39). */
export function fail(run: BatchRun, error: unknown): void {
  if (run.state.fail(error)) run.signals.stop(run.state.unfinished(), error)
  drive(run)
}

/** The caller's signal aborted: no call starts any more, the running ones see the abort (T26, T38). */
export function callerAborted(run: BatchRun): void {
  if (run.state.abort()) run.signals.stop(run.state.unfinished(), run.caller?.reason)
  drive(run)
}

/** A notification hook of call `index` (absent: nothing to do); a throw or a rejection fails the batch. */
export function notify(
  run: BatchRun,
  hook: ((index: number, input: ToolExecutionInput) => unknown) | undefined,
  index: number,
  input: ToolExecutionInput,
): void {
  if (hook === undefined) return
  try {
    const returned = hook(index, input)
    if (isThenable(returned)) returned.then(undefined, run.onFail)
  } catch (error) {
    fail(run, error)
  }
}
