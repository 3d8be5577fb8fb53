import type { ExecutionMode, LateToolOutcome } from '@deepseek-ai/dsh-tools'
import type { RecordedCallBlock } from '../log/create-call-id-allocator.ts'
import type { CallTimePoints } from './measure-recorded-timings.ts'

/**
 * What the session and the clock know of one call, the step's own or a nested one. The moments are
 * `performance.now()` readings, set only when the step is timed.
 */
export interface CallRecord extends CallTimePoints {
  /** Seq of its `tool/call`, once recorded. */
  callSeq: number | undefined
  /** Seq of its `tool/result`, once recorded. */
  resultSeq: number | undefined
  queuedAt: number | undefined
  startedAt: number | undefined
  settledAt: number | undefined
}

/**
 * One call of the step, from the batch's hand-off to the session: the block it runs and is
 * recorded under, the mode it started in, its seqs, its moments, a late outcome held back until its
 * result is recorded, and its open nested calls (it is their `NestedParent`). The ledger, the
 * progress events and the nested recorder each read and write this one record; none keeps a
 * parallel array or a map of its own.
 */
export interface StepCall extends CallRecord, NestedParent {
  /** Its place in model order (the batch's index). */
  readonly index: number
  readonly block: RecordedCallBlock
  /** The mode it started in; undefined for a call announced without starting (or not yet). */
  mode: ExecutionMode | undefined
  /** When its result was committed (timed steps); a body that settles later changes no timing. */
  committedAt: number | undefined
  /** A late outcome that came before its `tool/result` was recorded. */
  heldLate: LateToolOutcome | undefined
  /**
   * While its `tool/call` is being made durable by an asynchronous session: settles once it and
   * every earlier `tool/call` of the step are durable (its `callSeq` is then set), rejects with the
   * session's error when one was refused. Undefined once it resolved, and for a synchronous session.
   */
  durable: Promise<void> | undefined
  /**
   * While its `tool/result` is being made durable by an asynchronous session (appended, not yet
   * acknowledged): settles once it and everything the step appended before it are durable.
   */
  recording: Promise<void> | undefined
}

/** A call a `run_code` program made (T33), counted among its outer call's open nested calls. */
export interface NestedCall extends CallRecord {
  readonly callId: string
  readonly parent: NestedParent
  /** Still counted among `parent.open`. */
  counted: boolean
}

/** An outer call as its nested calls see it. */
export interface NestedParent {
  /** Nested calls that have no recorded result yet (or whose recording failed: they are released). */
  open: number
  /** Its own `tool/result` is being recorded: it takes no new nested call. */
  answered: boolean
  /** Runs once `open` drops to 0 (the outer call's result waits for it). */
  waiter: (() => void) | undefined
}

/** A recorded call without a recorded result. */
export interface UnansweredCall {
  readonly callId: string
  readonly callSeq: number
}

/**
 * The record of one step's calls (`createStepCalls`): pure state, no session and no clock, so it
 * is tested on its own (test/step-calls.test.ts) like the tools package's batch state.
 *
 * Calls are announced (`tool/call` recorded or held back) and answered (`tool/result` recorded) in
 * model order, so the answered calls are a prefix of the announced ones.
 */
export interface StepCalls {
  /** The step's calls in model order (grows while the message streams). */
  readonly list: readonly StepCall[]
  /** Adds the next call in model order. */
  add(block: RecordedCallBlock): StepCall
  /** The first call of the step recorded under `callId` (ids are unique in a step). */
  byId(callId: string): StepCall | undefined
  /** How many calls were announced: the index the next announced call must have. */
  readonly announced: number
  /** Call `announced` was announced. */
  announce(): void
  /**
   * How many calls have their `tool/result` appended (durable or not yet, with an asynchronous
   * session): the index the next result must have.
   */
  readonly issued: number
  /** `call`'s `tool/result` was appended (it is call `issued`). */
  issue(call: StepCall): void
  /** How many calls, in model order from the first, have their `tool/result` recorded (durable). */
  readonly answered: number
  /** `call`'s `tool/result` was recorded at `resultSeq`; a synchronous append is issued here too. */
  answer(call: StepCall, resultSeq: number): void
  /** Holds `outcome` until `call`'s result is recorded (`takeHeld`) or the batch ends (`drainHeld`). */
  hold(call: StepCall, outcome: LateToolOutcome): void
  /** The outcome held for `call`, no longer held. */
  takeHeld(call: StepCall): LateToolOutcome | undefined
  /** Every held outcome in the order they came, none held afterwards. */
  drainHeld(): { readonly call: StepCall; readonly outcome: LateToolOutcome }[]
  /**
   * The outer call `callId` as its nested calls see it: the step's call of that id, or (for an id
   * that is no call of the step) a record created on first sight.
   */
  parent(callId: string): NestedParent
  /** The nested call `callId`, if admitted. */
  nested(callId: string): NestedCall | undefined
  /**
   * The seq of the `tool/call` of `call`'s outer call `parentId`, if it is a call of this step and
   * recorded: `byId(parentId)?.callSeq`, read from `call.parent` when that is the step's call itself
   * (no lookup of the id per nested call).
   */
  outerSeq(call: NestedCall, parentId: string): number | undefined
  /**
   * Admits nested call `callId` under `parentId`, counted among its open calls: undefined when the
   * outer call was answered already (the caller refuses it). An admitted call is returned as it is.
   */
  admitNested(callId: string, parentId: string, queuedAt: number | undefined): NestedCall | undefined
  /** `call` no longer counts among its parent's open calls; runs the parent's waiter at 0. */
  releaseNested(call: NestedCall): void
  /** Recorded calls without a recorded result, the step's and the nested, in log order. */
  unanswered(): UnansweredCall[]
}

/** Whether `parent` is a call of the step (a stranger's record has no block). */
const isStepCall = (parent: NestedParent): parent is StepCall =>
  (parent as Partial<StepCall>).block !== undefined

/**
 * `StepCalls` as a class: its methods are made once, not per step. Closures made afresh for each
 * step lose their optimized code whenever a full collection finds no step alive (V8 holds it
 * weakly), and the next step runs them unoptimized until TurboFan compiles them again (the Code Mode
 * order effect, bench/README); methods of a prototype keep theirs.
 */
class StepCallsRecord implements StepCalls {
  readonly list: StepCall[] = []
  /** callId → the first call recorded under it, indexed up to `indexed` (the list grows). */
  private ids: Map<string, StepCall> | undefined = undefined
  private indexed = 0
  /** Held late outcomes, in the order they came (a Set keeps insertion order). */
  private held: Set<StepCall> | undefined = undefined
  /** Parents named by nested calls that are no call of this step (the nested call is then refused). */
  private strangers: Map<string, NestedParent> | undefined = undefined
  private nestedCalls: Map<string, NestedCall> | undefined = undefined
  // The counters are plain fields (read-only to the record's users by type), not getters.
  announced = 0
  issued = 0
  answered = 0

  add(block: RecordedCallBlock): StepCall {
    const { list } = this
    const call: StepCall = {
      index: list.length,
      block,
      mode: undefined,
      callSeq: undefined,
      resultSeq: undefined,
      queuedAt: undefined,
      startedAt: undefined,
      settledAt: undefined,
      committedAt: undefined,
      heldLate: undefined,
      durable: undefined,
      recording: undefined,
      open: 0,
      answered: false,
      waiter: undefined,
    }
    list.push(call)
    return call
  }

  byId(callId: string): StepCall | undefined {
    const { list } = this
    const ids = (this.ids ??= new Map())
    let { indexed } = this
    for (; indexed < list.length; indexed++) {
      const call = list[indexed]!
      if (!ids.has(call.block.id)) ids.set(call.block.id, call)
    }
    this.indexed = indexed
    return ids.get(callId)
  }

  announce(): void {
    this.announced++
  }

  issue(call: StepCall): void {
    this.issued = Math.max(this.issued, call.index + 1)
  }

  answer(call: StepCall, resultSeq: number): void {
    const { list } = this
    call.resultSeq = resultSeq
    this.issued = Math.max(this.issued, call.index + 1)
    // a store may acknowledge out of order: answered counts the durable prefix
    let { answered } = this
    while (list[answered]?.resultSeq !== undefined) answered++
    this.answered = answered
  }

  hold(call: StepCall, outcome: LateToolOutcome): void {
    call.heldLate = outcome
    ;(this.held ??= new Set()).add(call)
  }

  takeHeld(call: StepCall): LateToolOutcome | undefined {
    const outcome = call.heldLate
    if (outcome === undefined) return undefined
    call.heldLate = undefined
    this.held?.delete(call)
    return outcome
  }

  drainHeld(): { readonly call: StepCall; readonly outcome: LateToolOutcome }[] {
    const out: { call: StepCall; outcome: LateToolOutcome }[] = []
    const { held } = this
    if (held === undefined) return out
    for (const call of held) {
      out.push({ call, outcome: call.heldLate! })
      call.heldLate = undefined
    }
    held.clear()
    return out
  }

  parent(callId: string): NestedParent {
    const own = this.byId(callId)
    if (own !== undefined) return own
    const strangers = (this.strangers ??= new Map())
    let parent = strangers.get(callId)
    if (parent === undefined)
      strangers.set(callId, (parent = { open: 0, answered: false, waiter: undefined }))
    return parent
  }

  nested(callId: string): NestedCall | undefined {
    return this.nestedCalls?.get(callId)
  }

  outerSeq(call: NestedCall, parentId: string): number | undefined {
    const { parent } = call
    // `parent` is what `parent(parentId)` gave: the step's call of that id (which `byId` keeps
    // giving), or a stranger's record, for which the id is looked up as before
    if (isStepCall(parent)) return parent.callSeq
    return this.byId(parentId)?.callSeq
  }

  admitNested(callId: string, parentId: string, queuedAt: number | undefined): NestedCall | undefined {
    const known = this.nestedCalls?.get(callId)
    if (known !== undefined) return known
    const parent = this.parent(parentId)
    if (parent.answered) return undefined
    parent.open++
    const call: NestedCall = {
      callId,
      parent,
      counted: true,
      callSeq: undefined,
      resultSeq: undefined,
      queuedAt,
      startedAt: undefined,
      settledAt: undefined,
    }
    ;(this.nestedCalls ??= new Map()).set(callId, call)
    return call
  }

  releaseNested(call: NestedCall): void {
    if (!call.counted) return
    call.counted = false
    const { parent } = call
    parent.open--
    if (parent.open === 0 && parent.waiter !== undefined) {
      const waiter = parent.waiter
      parent.waiter = undefined
      waiter()
    }
  }

  unanswered(): UnansweredCall[] {
    const { list } = this
    const open: UnansweredCall[] = []
    for (let index = this.answered; list[index]?.callSeq !== undefined; index++) {
      open.push({ callId: list[index]!.block.id, callSeq: list[index]!.callSeq! })
    }
    for (const [callId, call] of this.nestedCalls ?? [])
      if (call.callSeq !== undefined && call.resultSeq === undefined)
        open.push({ callId, callSeq: call.callSeq })
    return open.sort((a, b) => a.callSeq - b.callSeq)
  }
}

export function createStepCalls(): StepCalls {
  return new StepCallsRecord()
}
