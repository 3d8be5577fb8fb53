import type {
  CallConcurrency,
  ExecutionMode,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
import type {
  BatchState,
  BatchStop,
  BatchView,
  CallPhase,
  CommitStep,
  PendingResult,
} from '../contract/batch-state-types.ts'
import type { KeyLocks } from './key-locks.ts'

export type { BatchState, BatchView, CommitStep, PendingResult } from '../contract/batch-state-types.ts'

/** The keys of a call that holds none (shared: a call's keys are never changed in place). */
const NO_KEYS: readonly string[] = Object.freeze([])

interface CallEntry {
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

/** The coordination state behind `createToolBatch` (see `BatchState`); unit-tested on its own. */
export function createBatchState(options: {
  readonly maxParallel: number
  readonly locks: KeyLocks
  /** An exclusive call need not wait for `close()` (a program's nested calls). */
  readonly exclusiveBeforeClose?: boolean
}): BatchState {
  return new CallTable(options.maxParallel, options.locks, options.exclusiveBeforeClose === true)
}

/**
 * `BatchState` as a class: its figures are prototype getters. (An object literal that declares a
 * getter is a dictionary-mode object in V8: every one of the dozen method calls the batch makes per
 * call was a hash lookup that could not be inlined, and cost more than the method's work. Issue 26.)
 */
class CallTable implements BatchState {
  readonly #calls: CallEntry[] = []
  #closed = false
  #stop: BatchStop | undefined = undefined
  #started = 0
  #committed = 0
  #starting = false
  #committing = false
  #inPool = 0
  #barrier = 0
  #running = 0
  #settled = 0
  #lingering = 0
  /** Dispatches that have not returned. */
  #inFlight = 0
  #suspended: { readonly index: number; readonly reason: string | undefined } | undefined = undefined
  #parked = false

  constructor(
    readonly maxParallel: number,
    private readonly locks: KeyLocks,
    private readonly exclusiveBeforeClose: boolean,
  ) {}

  get closed(): boolean {
    return this.#closed
  }
  get stop(): BatchStop | undefined {
    return this.#stop
  }
  get added(): number {
    return this.#calls.length
  }
  get started(): number {
    return this.#started
  }
  get committed(): number {
    return this.#committed
  }
  get done(): boolean {
    return (
      this.#closed &&
      !this.#committing &&
      this.#inFlight === 0 &&
      (this.#committed === this.#calls.length || this.#parked)
    )
  }
  get parked(): BatchState['parked'] {
    return this.#parked ? this.#suspended : undefined
  }

  #entry(index: number): CallEntry {
    const found = this.#calls[index]
    if (found === undefined)
      throw new RangeError(`batch state: no call ${index} (${this.#calls.length} added)`)
    return found
  }

  /** The call's dispatch returned (with a candidate, or rejected). */
  #returned(call: CallEntry): void {
    if (!call.inFlight) return
    call.inFlight = false
    this.#inFlight--
  }

  #release(call: CallEntry): void {
    if (!call.claim) return
    call.claim = false
    if (call.mode === 'parallel') {
      this.#inPool--
      this.locks.release(call.keys)
    } else this.#barrier--
  }

  add(input: ToolExecutionInput): number {
    if (this.#closed) throw new Error('batch state: add after close')
    this.#calls.push({
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
    return this.#calls.length - 1
  }

  close(): void {
    this.#closed = true
  }

  abort(): boolean {
    if (this.#stop !== undefined) return false
    this.#stop = { kind: 'aborted' }
    return true
  }

  fail(error: unknown): boolean {
    if (this.#stop?.kind === 'failed') return false
    this.#stop = { kind: 'failed', error }
    return true
  }

  input(index: number): ToolExecutionInput {
    return this.#entry(index).input
  }

  phase(index: number): CallPhase {
    return this.#entry(index).phase
  }

  nextToStart(): number | undefined {
    return this.#stop === undefined &&
      this.#suspended === undefined &&
      !this.#starting &&
      this.#started < this.#calls.length
      ? this.#started
      : undefined
  }

  admits(index: number, { mode, keys }: CallConcurrency, eager: boolean): boolean {
    if (
      this.#stop !== undefined ||
      this.#suspended !== undefined ||
      this.#starting ||
      index !== this.#started
    )
      return false
    if (index >= this.#calls.length) return false
    if (this.#barrier > 0) return false
    if (mode === 'exclusive')
      return (this.#closed || this.exclusiveBeforeClose) && this.#committed === index && this.#inPool === 0
    return (this.#closed || eager) && this.#inPool < this.maxParallel && this.locks.free(keys)
  }

  begin(index: number, { mode, keys }: CallConcurrency): void {
    const call = this.#entry(index)
    if (index !== this.#started || call.phase !== 'queued')
      throw new Error(
        `batch state: call ${index} cannot start (next is ${this.#started}, phase ${call.phase})`,
      )
    this.#started++
    this.#starting = true
    call.phase = 'starting'
    call.mode = mode
    call.keys = mode === 'parallel' ? keys : NO_KEYS
    call.claim = true
    if (mode === 'parallel') {
      this.#inPool++
      this.locks.hold(call.keys)
    } else this.#barrier++
  }

  dispatched(index: number): void {
    const call = this.#entry(index)
    if (call.phase !== 'starting') return
    this.#starting = false
    call.phase = 'running'
    call.ran = true
    call.inFlight = true
    this.#running++
    this.#inFlight++
  }

  suspend(index: number, reason: string | undefined): void {
    const call = this.#entry(index)
    if (call.phase !== 'starting') return
    this.#starting = false
    call.phase = 'suspended'
    this.#suspended = { index, reason }
    this.#release(call)
  }

  park(index: number): void {
    const call = this.#entry(index)
    if (call.phase !== 'suspended' || index !== this.#committed)
      throw new Error(
        `batch state: call ${index} cannot be parked (phase ${call.phase}, next commit ${this.#committed})`,
      )
    this.#parked = true
  }

  settle(index: number, pending: PendingResult, stillRunning: boolean): boolean {
    const call = this.#entry(index)
    this.#returned(call)
    if (call.phase === 'committed') {
      // answered by recovery while its body still ran: the claim goes when the body is done
      if (!stillRunning) this.#release(call)
      else if (!call.lingering) {
        call.lingering = true
        this.#lingering++
      }
      return false
    }
    if (call.phase === 'starting') this.#starting = false
    else if (call.phase === 'running') this.#running--
    else return false
    call.phase = 'settled'
    call.pending = pending
    this.#settled++
    if (stillRunning) {
      call.lingering = true
      this.#lingering++
    } else if (call.mode === 'parallel') this.#release(call)
    return true
  }

  abandon(index: number): void {
    const call = this.#entry(index)
    this.#returned(call)
    if (call.phase === 'starting') this.#starting = false
    else if (call.phase === 'running') this.#running--
    if (call.phase !== 'committed') call.phase = 'abandoned'
    if (call.lingering) {
      call.lingering = false
      this.#lingering--
    }
    this.#release(call)
  }

  bodyDone(index: number): void {
    const call = this.#entry(index)
    if (!call.lingering) return
    call.lingering = false
    this.#lingering--
    if (call.mode === 'parallel' || call.phase === 'committed') this.#release(call)
  }

  nextCommit(): CommitStep | undefined {
    if (this.#committing || this.#parked || this.#committed >= this.#calls.length) return undefined
    const index = this.#committed
    const call = this.#calls[index]!
    const stop = this.#stop
    if (stop?.kind === 'failed') {
      // a body that returned a result which will never be final: its outcome must not be lost
      const dropped =
        call.phase === 'settled' && call.ran && !call.lingering && call.final === undefined
          ? call.pending
          : undefined
      const announced = index < this.#started
      return dropped === undefined
        ? { kind: 'recover', index, announced, final: call.final }
        : { kind: 'recover', index, announced, final: call.final, dropped }
    }
    if (call.phase === 'settled') return { kind: 'finalize', index, pending: call.pending! }
    if (call.phase === 'suspended') return { kind: 'suspend', index, reason: this.#suspended?.reason }
    if (stop?.kind === 'aborted' && index >= this.#started) return { kind: 'skip', index }
    return undefined
  }

  nextFinalize(): PendingResult | undefined {
    if (this.#committing || this.#parked || this.#committed >= this.#calls.length) return undefined
    if (this.#stop?.kind === 'failed') return undefined
    const call = this.#calls[this.#committed]!
    return call.phase === 'settled' ? call.pending : undefined
  }

  beginCommit(): void {
    this.#committing = true
  }

  endCommit(): void {
    this.#committing = false
  }

  finalized(index: number, result: ToolExecutionResult): void {
    this.#entry(index).final = result
  }

  announce(index: number): void {
    const call = this.#entry(index)
    if (index !== this.#started || call.phase !== 'queued')
      throw new Error(`batch state: call ${index} cannot be announced (next is ${this.#started})`)
    this.#started++
  }

  commit(index: number, result: ToolExecutionResult): void {
    const call = this.#entry(index)
    if (index !== this.#committed)
      throw new Error(`batch state: commit of ${index} while ${this.#committed} is next`)
    const bodyDone = call.phase === 'settled' && !call.lingering
    if (call.phase === 'settled') this.#settled--
    else if (call.phase === 'running') this.#running--
    else if (call.phase === 'starting') this.#starting = false
    call.phase = 'committed'
    call.final = result
    call.pending = undefined
    this.#committed++
    // A parallel claim went at settle; an exclusive one goes now unless its body still runs
    // (recovery may answer a call before its body settles: then `settle`/`abandon` releases it).
    if (call.mode === 'exclusive' && bodyDone) this.#release(call)
  }

  results(): ToolExecutionResult[] {
    const calls = this.#parked ? this.#calls.slice(0, this.#committed) : this.#calls
    return calls.map((call) => call.final!)
  }

  unfinished(): number[] {
    const out: number[] = []
    for (let index = this.#committed; index < this.#started; index++) out.push(index)
    return out
  }

  view(): BatchView {
    return {
      added: this.#calls.length,
      queued: this.#calls.length - this.#started,
      starting: this.#starting ? 1 : 0,
      running: this.#running,
      settled: this.#settled,
      committed: this.#committed,
      inPool: this.#inPool,
      lingering: this.#lingering,
      draining: this.#inFlight - this.#running,
      barrier: this.#barrier > 0,
      suspended: this.#suspended !== undefined,
      closed: this.#closed,
      stop: this.#stop?.kind,
    }
  }
}
