import type { CallConcurrency, ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type {
  BatchState,
  BatchStop,
  BatchView,
  CallPhase,
  CommitStep,
  PendingResult,
} from '../contract/batch-state-types.ts'
import type { KeyLocks } from './key-locks.ts'
import { BatchTable, entryOf, NO_KEYS } from './batch-table.ts'
import { admits, begin, dispatched, nextToStart, suspend } from './batch-starts.ts'
import { abandon, bodyDone, settle } from './batch-settles.ts'
import { announce, commit, nextCommit, nextFinalize, park, results, unfinished } from './batch-commits.ts'

export type { BatchState, BatchView, CommitStep, PendingResult } from '../contract/batch-state-types.ts'

/** The coordination state behind `createToolBatch` (see `BatchState`); unit-tested on its own. */
export function createBatchState(options: {
  readonly maxParallel: number
  readonly locks: KeyLocks
  /** An exclusive call need not wait for `close()` (a program's nested calls). */
  readonly exclusiveBeforeClose?: boolean
}): BatchState {
  return new CallTable(
    new BatchTable(options.maxParallel, options.locks, options.exclusiveBeforeClose === true),
  )
}

/**
 * `BatchState` as a class: its figures are prototype getters. (An object literal that declares a
 * getter is a dictionary-mode object in V8: every one of the dozen method calls the batch makes per
 * call was a hash lookup that could not be inlined, and cost more than the method's work. Issue 26.)
 * The table it keeps is private to it; the rules of each side of the batch live in a module of
 * their own (`batch-starts.ts`, `batch-settles.ts`, `batch-commits.ts`) and take the table.
 */
class CallTable implements BatchState {
  readonly #t: BatchTable
  readonly maxParallel: number

  constructor(table: BatchTable) {
    this.#t = table
    this.maxParallel = table.maxParallel
  }

  get closed(): boolean {
    return this.#t.closed
  }
  get stop(): BatchStop | undefined {
    return this.#t.stop
  }
  get added(): number {
    return this.#t.calls.length
  }
  get started(): number {
    return this.#t.started
  }
  get committed(): number {
    return this.#t.committed
  }
  get done(): boolean {
    const t = this.#t
    return t.closed && !t.committing && t.inFlight === 0 && (t.committed === t.calls.length || t.parked)
  }
  get parked(): BatchState['parked'] {
    const t = this.#t
    return t.parked ? t.suspended : undefined
  }

  add(input: ToolExecutionInput): number {
    const t = this.#t
    if (t.closed) throw new Error('batch state: add after close')
    t.calls.push({
      input,
      phase: 'queued',
      mode: undefined,
      keys: NO_KEYS,
      claim: false,
      lingering: false,
      ran: false,
      inFlight: false,
      pending: undefined,
      final: undefined,
    })
    return t.calls.length - 1
  }

  close(): void {
    this.#t.closed = true
  }

  abort(): boolean {
    const t = this.#t
    if (t.stop !== undefined) return false
    t.stop = { kind: 'aborted' }
    return true
  }

  fail(error: unknown): boolean {
    const t = this.#t
    if (t.stop?.kind === 'failed') return false
    t.stop = { kind: 'failed', error }
    return true
  }

  input(index: number): ToolExecutionInput {
    return entryOf(this.#t, index).input
  }

  phase(index: number): CallPhase {
    return entryOf(this.#t, index).phase
  }

  nextToStart(): number | undefined {
    return nextToStart(this.#t)
  }

  admits(index: number, concurrency: CallConcurrency, eager: boolean): boolean {
    return admits(this.#t, index, concurrency, eager)
  }

  begin(index: number, concurrency: CallConcurrency): void {
    begin(this.#t, index, concurrency)
  }

  dispatched(index: number): void {
    dispatched(this.#t, index)
  }

  suspend(index: number, reason: string | undefined): void {
    suspend(this.#t, index, reason)
  }

  park(index: number): void {
    park(this.#t, index)
  }

  settle(index: number, pending: PendingResult, stillRunning: boolean): boolean {
    return settle(this.#t, index, pending, stillRunning)
  }

  abandon(index: number): void {
    abandon(this.#t, index)
  }

  bodyDone(index: number): void {
    bodyDone(this.#t, index)
  }

  nextCommit(): CommitStep | undefined {
    return nextCommit(this.#t)
  }

  nextFinalize(): PendingResult | undefined {
    return nextFinalize(this.#t)
  }

  beginCommit(): void {
    this.#t.committing = true
  }

  endCommit(): void {
    this.#t.committing = false
  }

  finalized(index: number, result: ToolExecutionResult): void {
    entryOf(this.#t, index).final = result
  }

  announce(index: number): void {
    announce(this.#t, index)
  }

  commit(index: number, result: ToolExecutionResult): void {
    commit(this.#t, index, result)
  }

  results(): ToolExecutionResult[] {
    return results(this.#t)
  }

  unfinished(): number[] {
    return unfinished(this.#t)
  }

  view(): BatchView {
    const t = this.#t
    return {
      added: t.calls.length,
      queued: t.calls.length - t.started,
      starting: t.starting ? 1 : 0,
      running: t.running,
      settled: t.settled,
      committed: t.committed,
      inPool: t.inPool,
      lingering: t.lingering,
      draining: t.inFlight - t.running,
      barrier: t.barrier > 0,
      suspended: t.suspended !== undefined,
      closed: t.closed,
      stop: t.stop?.kind,
    }
  }
}
