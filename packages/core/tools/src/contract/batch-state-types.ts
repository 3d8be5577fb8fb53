import type { CallConcurrency, ToolExecutionInput, ToolExecutionResult } from './types.ts'
import type { ScheduledToolDispatch, ScheduledToolPreparation } from './scheduler-types.ts'

/** A candidate result waiting for its commit turn: what `prepare` or `dispatch` produced. */
export type PendingResult =
  | Exclude<ScheduledToolPreparation, { readonly stage: 'dispatch' | 'approval-pending' }>
  | ScheduledToolDispatch

/**
 * Where one call is. `queued`: added, not started. `starting`: announced (`onStart`), its policy
 * stage runs. `running`: its body runs. `settled`: a candidate result waits for its commit turn.
 * `suspended`: its approval is pending (durable approvals): it waits for its commit turn to be
 * reported (`onSuspend`), and the batch starts nothing after it. `abandoned`: the batch failed
 * under it and its stage outcome will be ignored; recovery answers it. `committed`: its one result
 * is final and handed over.
 */
export type CallPhase =
  'queued' | 'starting' | 'running' | 'settled' | 'suspended' | 'abandoned' | 'committed'

export type BatchStop = { readonly kind: 'aborted' } | { readonly kind: 'failed'; readonly error: unknown }

/** What the commit side does next (one step at a time; model order). */
export type CommitStep =
  /** Run `finalize`/`finish` on the call's candidate result, then commit it. */
  | { readonly kind: 'finalize'; readonly index: number; readonly pending: PendingResult }
  /** An abort kept the call from starting: announce it, then commit `ABORTED_BEFORE_DISPATCH`. */
  | { readonly kind: 'skip'; readonly index: number }
  /**
   * Every call before it has committed and its approval is pending: report it (`onSuspend`), then
   * park the batch there (the calls after it never start; the driver runs them with the answer).
   */
  | { readonly kind: 'suspend'; readonly index: number; readonly reason: string | undefined }
  /**
   * The batch failed: commit the call's final result if it has one (observers saw it), else a
   * `SCHEDULER_FAILED`; announce it first when it never started. `dropped`: the candidate a body
   * returned that will never become final (the call gets `SCHEDULER_FAILED`): what the body did is
   * reported as its late outcome instead of being lost.
   */
  | {
      readonly kind: 'recover'
      readonly index: number
      readonly announced: boolean
      readonly final: ToolExecutionResult | undefined
      readonly dropped?: PendingResult
    }

/** The queue and counts of a batch, p-limit style. */
export interface BatchView {
  readonly added: number
  /** Added and not started yet. */
  readonly queued: number
  /** Announced calls whose policy stage runs (0 or 1: policy runs in model order). */
  readonly starting: number
  /** Bodies running. */
  readonly running: number
  /** Candidate results waiting for their commit turn. */
  readonly settled: number
  readonly committed: number
  /** Pool slots taken (parallel calls running, or whose body outlives its result). */
  readonly inPool: number
  /** Committed calls whose body has not settled yet (they keep their claims). */
  readonly lingering: number
  /**
   * Calls a failure answered while their dispatch had not returned: the batch is not done until it
   * has (the abort grace bounds the wait, T38), and what the body did is then a late outcome.
   */
  readonly draining: number
  /** An exclusive call holds the barrier. */
  readonly barrier: boolean
  /** A call's approval is pending: nothing after it starts. */
  readonly suspended: boolean
  readonly closed: boolean
  readonly stop: BatchStop['kind'] | undefined
}

/**
 * The coordination state of one batch, with no I/O: the driver (`createToolBatch`) asks it what may
 * happen next and tells it what happened. Calls start in model order, one policy stage at a time;
 * an exclusive call starts only after the batch is closed (without waiting for it under
 * `exclusiveBeforeClose`), everything before it committed and no body of the batch still runs, and
 * holds the barrier until it has committed and its body settled;
 * a parallel call needs a free slot of `maxParallel` and free keys (in `locks`, shared per
 * scheduler), and before close only when the caller lets it (`eager`). Results commit in model
 * order, one at a time.
 */
export interface BatchState {
  readonly maxParallel: number
  readonly closed: boolean
  readonly stop: BatchStop | undefined
  readonly added: number
  readonly started: number
  readonly committed: number
  /**
   * True once closed and every added call has committed, or every call before a suspended one has
   * and that one was parked (with no commit step in progress), and no dispatch is still out: a
   * failure answers calls whose bodies run, and the batch waits for those dispatches to return.
   */
  readonly done: boolean
  /** The parked call (its approval pending) once the batch is done there. */
  readonly parked: { readonly index: number; readonly reason: string | undefined } | undefined
  add(input: ToolExecutionInput): number
  close(): void
  /** Stops starting calls. False if the batch had already stopped. */
  abort(): boolean
  /** The first failure wins (over an abort too); false for later ones. */
  fail(error: unknown): boolean
  input(index: number): ToolExecutionInput
  phase(index: number): CallPhase
  /** The call whose start may be attempted now, if any (the driver then reads its concurrency). */
  nextToStart(): number | undefined
  /** T22, T23 and keys: may call `index` start with this concurrency now? */
  admits(index: number, concurrency: CallConcurrency, eager: boolean): boolean
  /** Announces the call and takes its claim; its policy stage starts. */
  begin(index: number, concurrency: CallConcurrency): void
  /** The policy stage is over and the body runs (`dispatch` was called). */
  dispatched(index: number): void
  /** The policy stage ended with a pending approval: the claim goes, and nothing after it starts. */
  suspend(index: number, reason: string | undefined): void
  /** The suspended call was reported in its commit turn: the batch is done there. */
  park(index: number): void
  /**
   * A candidate result exists (for a dispatched call: its dispatch returned). `lingering`: the body
   * still runs (its claim is kept). False when the call was no longer waiting for one (recovery
   * answered it already: what its body did is then the driver's to report as late).
   */
  settle(index: number, pending: PendingResult, lingering: boolean): boolean
  /**
   * The call will never produce a candidate (the batch failed under it, or its dispatch rejected):
   * release its claim.
   */
  abandon(index: number): void
  /** A lingering body settled: its claim may go. */
  bodyDone(index: number): void
  /** The commit side's next step, if one may run now. */
  nextCommit(): CommitStep | undefined
  /**
   * The candidate of the next call when the commit side's next step is a plain `finalize` of it:
   * what `nextCommit()` would return as `{ kind: 'finalize', index: committed, pending }`, without
   * making that record (one per call of every batch). Otherwise undefined, and `nextCommit()` says
   * what comes next.
   */
  nextFinalize(): PendingResult | undefined
  /** A commit step runs (`finalize` may await): no other commit step until `endCommit`. */
  beginCommit(): void
  endCommit(): void
  /** The call's final result exists (observers saw it); it is the only one it will ever get. */
  finalized(index: number, result: ToolExecutionResult): void
  /** Announces a call that never started (abort, failure). */
  announce(index: number): void
  commit(index: number, result: ToolExecutionResult): void
  /** Every call's result, in model order (complete once `done`; up to the parked call, if any). */
  results(): ToolExecutionResult[]
  /** Announced, uncommitted calls: those a stop must reach. */
  unfinished(): number[]
  view(): BatchView
}
