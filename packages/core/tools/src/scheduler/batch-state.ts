import type { ExecutionMode, ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type { BatchState, BatchStop, CallPhase, PendingResult } from '../contract/batch-state-types.ts'
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
  const { maxParallel, locks } = options
  const exclusiveBeforeClose = options.exclusiveBeforeClose === true
  const calls: CallEntry[] = []
  let closed = false
  let stop: BatchStop | undefined
  let started = 0
  let committed = 0
  let starting = false
  let committing = false
  let inPool = 0
  let barrier = 0
  let running = 0
  let settled = 0
  let lingering = 0
  /** Dispatches that have not returned. */
  let inFlight = 0
  let suspended: { readonly index: number; readonly reason: string | undefined } | undefined
  let parked = false

  const entry = (index: number): CallEntry => {
    const found = calls[index]
    if (found === undefined) throw new RangeError(`batch state: no call ${index} (${calls.length} added)`)
    return found
  }

  /** The call's dispatch returned (with a candidate, or rejected). */
  const returned = (call: CallEntry): void => {
    if (!call.inFlight) return
    call.inFlight = false
    inFlight--
  }

  const release = (call: CallEntry): void => {
    if (!call.claim) return
    call.claim = false
    if (call.mode === 'parallel') {
      inPool--
      locks.release(call.keys)
    } else barrier--
  }

  const state: BatchState = {
    maxParallel,
    get closed() {
      return closed
    },
    get stop() {
      return stop
    },
    get added() {
      return calls.length
    },
    get started() {
      return started
    },
    get committed() {
      return committed
    },
    get done() {
      return closed && !committing && inFlight === 0 && (committed === calls.length || parked)
    },
    get parked() {
      return parked ? suspended : undefined
    },

    add(input) {
      if (closed) throw new Error('batch state: add after close')
      calls.push({
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
      return calls.length - 1
    },
    close() {
      closed = true
    },
    abort() {
      if (stop !== undefined) return false
      stop = { kind: 'aborted' }
      return true
    },
    fail(error) {
      if (stop?.kind === 'failed') return false
      stop = { kind: 'failed', error }
      return true
    },
    input: (index) => entry(index).input,
    phase: (index) => entry(index).phase,

    nextToStart() {
      return stop === undefined && suspended === undefined && !starting && started < calls.length
        ? started
        : undefined
    },

    admits(index, { mode, keys }, eager) {
      if (stop !== undefined || suspended !== undefined || starting || index !== started) return false
      if (index >= calls.length) return false
      if (barrier > 0) return false
      if (mode === 'exclusive') return (closed || exclusiveBeforeClose) && committed === index && inPool === 0
      return (closed || eager) && inPool < maxParallel && locks.free(keys)
    },

    begin(index, { mode, keys }) {
      const call = entry(index)
      if (index !== started || call.phase !== 'queued')
        throw new Error(`batch state: call ${index} cannot start (next is ${started}, phase ${call.phase})`)
      started++
      starting = true
      call.phase = 'starting'
      call.mode = mode
      call.keys = mode === 'parallel' ? keys : NO_KEYS
      call.claim = true
      if (mode === 'parallel') {
        inPool++
        locks.hold(call.keys)
      } else barrier++
    },

    dispatched(index) {
      const call = entry(index)
      if (call.phase !== 'starting') return
      starting = false
      call.phase = 'running'
      call.ran = true
      call.inFlight = true
      running++
      inFlight++
    },

    suspend(index, reason) {
      const call = entry(index)
      if (call.phase !== 'starting') return
      starting = false
      call.phase = 'suspended'
      suspended = { index, reason }
      release(call)
    },

    park(index) {
      const call = entry(index)
      if (call.phase !== 'suspended' || index !== committed)
        throw new Error(
          `batch state: call ${index} cannot be parked (phase ${call.phase}, next commit ${committed})`,
        )
      parked = true
    },

    settle(index, pending, stillRunning) {
      const call = entry(index)
      returned(call)
      if (call.phase === 'committed') {
        // answered by recovery while its body still ran: the claim goes when the body is done
        if (!stillRunning) release(call)
        else if (!call.lingering) {
          call.lingering = true
          lingering++
        }
        return false
      }
      if (call.phase === 'starting') starting = false
      else if (call.phase === 'running') running--
      else return false
      call.phase = 'settled'
      call.pending = pending
      settled++
      if (stillRunning) {
        call.lingering = true
        lingering++
      } else if (call.mode === 'parallel') release(call)
      return true
    },

    abandon(index) {
      const call = entry(index)
      returned(call)
      if (call.phase === 'starting') starting = false
      else if (call.phase === 'running') running--
      if (call.phase !== 'committed') call.phase = 'abandoned'
      if (call.lingering) {
        call.lingering = false
        lingering--
      }
      release(call)
    },

    bodyDone(index) {
      const call = entry(index)
      if (!call.lingering) return
      call.lingering = false
      lingering--
      if (call.mode === 'parallel' || call.phase === 'committed') release(call)
    },

    nextCommit() {
      if (committing || parked || committed >= calls.length) return undefined
      const index = committed
      const call = calls[index]!
      if (stop?.kind === 'failed') {
        // a body that returned a result which will never be final: its outcome must not be lost
        const dropped =
          call.phase === 'settled' && call.ran && !call.lingering && call.final === undefined
            ? call.pending
            : undefined
        return dropped === undefined
          ? { kind: 'recover', index, announced: index < started, final: call.final }
          : { kind: 'recover', index, announced: index < started, final: call.final, dropped }
      }
      if (call.phase === 'settled') return { kind: 'finalize', index, pending: call.pending! }
      if (call.phase === 'suspended') return { kind: 'suspend', index, reason: suspended?.reason }
      if (stop?.kind === 'aborted' && index >= started) return { kind: 'skip', index }
      return undefined
    },

    beginCommit() {
      committing = true
    },
    endCommit() {
      committing = false
    },

    finalized(index, result) {
      entry(index).final = result
    },

    announce(index) {
      const call = entry(index)
      if (index !== started || call.phase !== 'queued')
        throw new Error(`batch state: call ${index} cannot be announced (next is ${started})`)
      started++
    },

    commit(index, result) {
      const call = entry(index)
      if (index !== committed) throw new Error(`batch state: commit of ${index} while ${committed} is next`)
      const bodyDone = call.phase === 'settled' && !call.lingering
      if (call.phase === 'settled') settled--
      else if (call.phase === 'running') running--
      else if (call.phase === 'starting') starting = false
      call.phase = 'committed'
      call.final = result
      call.pending = undefined
      committed++
      // A parallel claim went at settle; an exclusive one goes now unless its body still runs
      // (recovery may answer a call before its body settles: then `settle`/`abandon` releases it).
      if (call.mode === 'exclusive' && bodyDone) release(call)
    },

    results() {
      return (parked ? calls.slice(0, committed) : calls).map((call) => call.final!)
    },

    unfinished() {
      const out: number[] = []
      for (let index = committed; index < started; index++) out.push(index)
      return out
    },

    view() {
      return {
        added: calls.length,
        queued: calls.length - started,
        starting: starting ? 1 : 0,
        running,
        settled,
        committed,
        inPool,
        lingering,
        draining: inFlight - running,
        barrier: barrier > 0,
        suspended: suspended !== undefined,
        closed,
        stop: stop?.kind,
      }
    },
  }
  return state
}
