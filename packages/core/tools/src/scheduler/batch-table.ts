import type { ExecutionMode, ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type { BatchStop, CallPhase, PendingResult } from '../contract/batch-state-types.ts'
import type { KeyLocks } from './key-locks.ts'

/** The keys of a call that holds none (shared: a call's keys are never changed in place). */
export const NO_KEYS: readonly string[] = Object.freeze([])

export interface CallEntry {
  readonly input: ToolExecutionInput
  phase: CallPhase
  mode: ExecutionMode | undefined
  keys: readonly string[]
  /** Holds its pool slot and keys (parallel) or the barrier (exclusive). */
  claim: boolean
  /** The body outlives the call's result; the claim is kept until it settles. */
  lingering: boolean
  /** `dispatch` was called: a body may have started. */
  ran: boolean
  /** Its dispatch has not returned yet (the batch is not done while any has not). */
  inFlight: boolean
  pending: PendingResult | undefined
  /** The result `finalize`/`finish`/`synthesize` produced (observers saw it), before or after commit. */
  final: ToolExecutionResult | undefined
}

/**
 * The batch state's table of calls and its counts (`BatchState`): one record per batch, which the
 * rules of each side of the batch read and change (`batch-starts.ts`, `batch-settles.ts`,
 * `batch-commits.ts`); `CallTable` (batch-state.ts) is the object the driver holds. Plain fields in
 * a class: one shape for every batch, so each rule's reads are monomorphic.
 */
export class BatchTable {
  readonly calls: CallEntry[] = []
  closed = false
  stop: BatchStop | undefined = undefined
  started = 0
  committed = 0
  starting = false
  committing = false
  inPool = 0
  barrier = 0
  running = 0
  settled = 0
  lingering = 0
  /** Dispatches that have not returned. */
  inFlight = 0
  suspended: { readonly index: number; readonly reason: string | undefined } | undefined = undefined
  parked = false

  constructor(
    readonly maxParallel: number,
    readonly locks: KeyLocks,
    /** An exclusive call need not wait for `close()` (a program's nested calls). */
    readonly exclusiveBeforeClose: boolean,
  ) {}
}

export function entryOf(t: BatchTable, index: number): CallEntry {
  const found = t.calls[index]
  if (found === undefined) throw new RangeError(`batch state: no call ${index} (${t.calls.length} added)`)
  return found
}

/** The call's dispatch returned (with a candidate, or rejected). */
export function returned(t: BatchTable, call: CallEntry): void {
  if (!call.inFlight) return
  call.inFlight = false
  t.inFlight--
}

/** The call's claim goes: its pool slot and keys (parallel) or the barrier (exclusive). */
export function release(t: BatchTable, call: CallEntry): void {
  if (!call.claim) return
  call.claim = false
  if (call.mode === 'parallel') {
    t.inPool--
    t.locks.release(call.keys)
  } else t.barrier--
}
