import {
  appendOptionsCiting,
  type AnySession,
  type ApprovalRequestEventData,
  type ToolCallRecordedTimings,
} from '@deepseek-ai/dsh-session'
import type { ExecutionMode, LateToolOutcome, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { toolResultDataOf, toolResultFields } from '../log/append-tool-result.ts'
import { AgentLoopError } from '../base/errors.ts'
import { andThen, isPromiseLike, seqOf, type MaybePromise } from '../base/maybe-async.ts'
import { createLateOutcomeLedger, type LateOutcomeLedger } from './late-outcome-ledger.ts'
import { createCallRecords, type CallRecords } from './call-records.ts'

const noop = (): void => {}
import type { StepCall, StepCalls } from './step-calls.ts'

/**
 * Where the assistant message holding the step's calls stands. `recorded`: it is in the session
 * (at `seq`, which each `tool/call` then cites; `undefined` when the caller did not say). `pending`:
 * the model is still streaming it; calls that start meanwhile are recorded when it lands.
 */
export type LedgerMessage =
  { readonly kind: 'recorded'; readonly seq: number | undefined } | { readonly kind: 'pending' }

/**
 * What one step recorded in the session. Calls are recorded in model order and answered in model
 * order, so the answered calls are always a prefix of the recorded ones: a result offered while an
 * earlier one is missing is refused. That keeps a failed step's log replayable, or repairable by
 * `resume` (which answers the unanswered tail with `INTERRUPTED`).
 *
 * Eager dispatch (T40): nothing of a step is recorded before its assistant message. A call that
 * starts while the message still streams has its `tool/call` held back and appended when the message
 * lands (`messageRecorded`), in model order, before any result; a result that is ready earlier waits
 * for it (`recordResult` then returns a promise, which the batch awaits). If the message is never
 * recorded (`messageRefused`), nothing of the step is.
 *
 * With an asynchronous session (`AsyncSession`) a `tool/call` is appended without holding the next
 * start back (`CallRecords`): the call's body waits for it instead (`durable`, which the batch
 * awaits through `onDispatch`), and so do its result and an approval request, which cite its seq
 * (T25). A result counts as committed only once its `tool/result` is durable. With a synchronous
 * session nothing here allocates a promise.
 */
export interface ToolCallLedger {
  /**
   * Appends `tool/call` for call `index` (or holds it back until the message lands), with the mode
   * it started in (undefined for a call announced without starting). Throws when the session
   * refused it at once, or refused an earlier call's: the call then stays unannounced.
   */
  recordCall(index: number, mode: ExecutionMode | undefined): void
  /**
   * While call `index`'s `tool/call` (or an earlier one of the step) is not durable yet: a promise
   * that settles when it is, and rejects when the session refused it. Its body must not start before.
   */
  durable(index: number): Promise<void> | undefined
  /**
   * Appends `tool/result` for call `index` once its `tool/call` is durable; refuses to answer out of
   * model order. With an asynchronous session it returns once the append is made, not once it is
   * durable (`resultDurable`), so the next result can join the same commit; `settle` waits for them.
   */
  recordResult(index: number, result: ToolExecutionResult): void | Promise<void>
  /** While call `index`'s `tool/result` is not durable yet: a promise that settles when it is. */
  resultDurable(index: number): Promise<void> | undefined
  /** Why the session refused an append of this step (the step fails with it), once it did. */
  refusal(): { readonly error: unknown } | undefined
  /**
   * Appends `tool/late-outcome` for call `index`, citing its call and result; one that comes before
   * its result is recorded is held until then (or until `settle`).
   */
  recordLateOutcome(index: number, outcome: LateToolOutcome): void | Promise<void>
  /**
   * The batch is over: once every result appended is durable (or refused), late outcomes still held
   * are recorded citing their call only (or reported); the promise (asynchronous sessions) resolves
   * once they are settled, and never rejects.
   */
  settle(): void | Promise<void>
  /**
   * The assistant message was appended at `seq`: the held-back `tool/call`s are appended now, in
   * model order. When the session refuses one, it and every later call stay unrecorded and their
   * results are refused with the session's error (the batch then fails, and `resume` records them).
   */
  messageRecorded(seq: number): void
  /** The assistant message could not be recorded: no call or result of this step will be. */
  messageRefused(): void
  /**
   * Durable approvals: appends `approval/request` for call `index` (its approval is pending, every
   * earlier call answered), citing its `tool/call`; waits for the message like a result does.
   * Returns the request's seq.
   */
  recordApprovalRequest(
    index: number,
    extra: {
      readonly reason: string | undefined
      readonly contexts: readonly string[]
      readonly concludesTurn: boolean
    },
  ): number | Promise<number>
  /**
   * While the assistant message streams: a promise that settles when it is recorded (the held-back
   * calls then are) or refused. Undefined once either happened.
   */
  messageLanding(): Promise<void> | undefined
}

/** What `createToolCallLedger` is given. */
export interface ToolCallLedgerOptions {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  /** The step's calls in model order, under their session ids; may grow while the message streams. */
  readonly calls: StepCalls
  readonly message: LedgerMessage
  /** A late outcome held back until the message landed could not be recorded after all. */
  readonly lateFailed: (index: number, outcome: LateToolOutcome, error: unknown) => void
  /** Seq of call 0's `tool/call` when it is already in the log (a step continued after its approval). */
  readonly firstCallSeq?: number
  /** A call's timings as its `tool/result` is appended (undefined: it never started). */
  readonly timings: (call: StepCall) => ToolCallRecordedTimings | undefined
  /** The scope of the calls' idempotency keys (the session's id, T49), recorded on each `tool/call`. */
  readonly idempotencyScope?: string
}

type ApprovalExtra = Parameters<ToolCallLedger['recordApprovalRequest']>[1]

/**
 * The ledger as a class: its work is done by methods made once, not by closures made for each step,
 * which lose their optimized code when a full collection finds no step alive (the Code Mode order
 * effect, bench/README).
 */
class StepLedger implements ToolCallLedger {
  private readonly session: AnySession
  private readonly turn: number
  private readonly step: number
  private readonly calls: StepCalls
  private readonly list: readonly StepCall[]
  private readonly timings: (call: StepCall) => ToolCallRecordedTimings | undefined
  private message: LedgerMessage | { readonly kind: 'refused' }
  /** Why held-back calls could not be recorded when the message landed. */
  private broken: { readonly error: unknown } | undefined = undefined
  /** Until the message is recorded and the held-back calls with it, results wait for `landed`. */
  private holding: boolean
  private landed: Promise<void> | undefined = undefined
  private land: (() => void) | undefined = undefined
  private settled = false
  private readonly lates: LateOutcomeLedger
  private readonly records: CallRecords
  /** What each result's data is built from, filled in place (`toolResultDataOf`). */
  private readonly resultFields = toolResultFields()

  constructor(options: ToolCallLedgerOptions) {
    const { session, turn, step, calls, lateFailed, firstCallSeq, idempotencyScope } = options
    this.session = session
    this.turn = turn
    this.step = step
    this.calls = calls
    this.list = calls.list
    this.timings = options.timings
    this.message = options.message
    this.holding = options.message.kind === 'pending'
    this.lates = createLateOutcomeLedger({ session, turn, step, calls, lateFailed })
    this.records = createCallRecords({ session, turn, step, firstCallSeq, idempotencyScope })
  }

  private landing(): Promise<void> {
    return (this.landed ??= new Promise<void>((resolve) => (this.land = resolve)))
  }

  private messageSeq(): number | undefined {
    const { message } = this
    return message.kind === 'recorded' ? message.seq : undefined
  }

  private idOf(index: number): string | number {
    return this.list[index]?.block.id ?? index
  }

  /** The call whose result (or approval request) comes next, recorded as `tool/call`; else throws. */
  private nextToAnswer(index: number, what: 'result' | 'approval request'): StepCall {
    const { issued } = this.calls
    if (index !== issued) {
      // An earlier result could not be recorded: writing this one would break model order (T25).
      const missing = what === 'result' ? 'none' : 'no result'
      throw new AgentLoopError({
        code: 'UNRECORDED_RESULTS',
        kind: 'system',
        message: `executeToolCalls: not recording the ${what} of "${this.idOf(index)}" while "${this.idOf(issued)}" has ${missing}`,
      })
    }
    const call = this.list[index]
    if (call?.callSeq === undefined) {
      if (this.broken !== undefined) throw this.broken.error
      const early =
        what === 'result'
          ? `the scheduler committed call ${index} before it was recorded as tool/call`
          : `call ${index} asked for approval before it was recorded as tool/call`
      throw new AgentLoopError({
        code: 'INVALID_ARGUMENT',
        kind: 'system',
        message: `executeToolCalls: ${early}`,
      })
    }
    return call
  }

  // The waits below live in methods of their own (`appendAfter`, `followResult`): a closure in
  // `append` itself would make every call, the synchronous ones too, allocate its variables' context.
  private append(index: number, result: ToolExecutionResult): void | Promise<void> {
    if (this.message.kind === 'refused') return
    const refused = this.records.refusal()
    if (refused !== undefined) throw refused.error
    const durable = this.list[index]?.durable
    if (durable !== undefined) return this.appendAfter(durable, index, result)
    const call = this.nextToAnswer(index, 'result')
    // what `appendToolResult` records, built positionally (no options object per call)
    const data = toolResultDataOf(
      this.resultFields,
      this.turn,
      this.step,
      call.block.id,
      result,
      this.timings(call),
    )
    const appended = this.session.append('tool/result', data, appendOptionsCiting(call.callSeq!, true))
    if (!isPromiseLike(appended)) return this.answer(call, appended.seq)
    this.followResult(call, appended)
  }

  /** `append` once `durable` (the call's `tool/call`, or the message it waits for) settled. */
  private appendAfter(durable: Promise<void>, index: number, result: ToolExecutionResult): Promise<void> {
    return durable.then(() => this.append(index, result))
  }

  /**
   * An asynchronous session's `tool/result` append, not waited for here: the next result may join
   * the same commit (T61). Later gates, the call's end and `settle` wait for it; a refusal fails the
   * step (`refusal`).
   */
  private followResult(call: StepCall, appended: PromiseLike<{ readonly seq: number }>): void {
    this.calls.issue(call)
    const recording = this.records.follow(
      Promise.resolve(appended).then((recorded) => this.answer(call, recorded.seq)),
    )
    recording.then(() => {
      if (call.recording === recording) call.recording = undefined
    }, noop)
    call.recording = recording
  }

  private answer(call: StepCall, resultSeq: number): void {
    this.calls.answer(call, resultSeq)
    this.lates.answered(call)
  }

  /** Held-back calls are recorded (or refused): results may follow now. */
  private release(): void {
    this.holding = false
    this.land?.()
  }

  private requestApproval(index: number, extra: ApprovalExtra): MaybePromise<number> {
    if (this.message.kind === 'refused') throw new Error('the assistant message of its step was not recorded')
    const durable = this.list[index]?.durable
    if (durable !== undefined) return durable.then(() => this.requestApproval(index, extra))
    const call = this.nextToAnswer(index, 'approval request')
    const { block } = call
    const data: ApprovalRequestEventData = {
      turn: this.turn,
      step: this.step,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      ...(extra.contexts.length === 0 ? {} : { contexts: [...extra.contexts] }),
      ...(extra.concludesTurn ? { concludesTurn: true } : {}),
    }
    return andThen(this.session.append('approval/request', data, { sourceEventSeqs: [call.callSeq!] }), seqOf)
  }

  recordCall(index: number, mode: ExecutionMode | undefined): void {
    const { calls } = this
    if (index !== calls.announced) {
      throw new AgentLoopError({
        code: 'INVALID_ARGUMENT',
        kind: 'system',
        message: `executeToolCalls: the scheduler started call ${index} out of model order (expected ${calls.announced})`,
      })
    }
    const call = this.list[index]!
    call.mode = mode
    if (this.message.kind !== 'recorded') {
      calls.announce()
      return
    }
    // a call the session refused stays unannounced: the next one is then refused as out of order
    if (this.broken !== undefined) throw this.broken.error
    this.records.record(call, this.messageSeq())
    calls.announce()
  }

  durable(index: number): Promise<void> | undefined {
    return this.list[index]?.durable
  }

  recordResult(index: number, result: ToolExecutionResult): void | Promise<void> {
    if (!this.holding) return this.append(index, result)
    return this.appendAfter(this.landing(), index, result)
  }

  recordLateOutcome(index: number, outcome: LateToolOutcome): void | Promise<void> {
    const call = this.list[index]
    if (
      !this.settled &&
      call !== undefined &&
      call.resultSeq === undefined &&
      this.message.kind !== 'refused' &&
      index < this.calls.announced
    ) {
      this.lates.hold(call, outcome)
      return
    }
    return this.lates.record(index, outcome)
  }

  settle(): void | Promise<void> {
    this.settled = true
    const pending = this.records.last()
    const { lates } = this
    if (pending === undefined) return lates.settle()
    const then = (): void | Promise<void> => lates.settle()
    return pending.then(then, then)
  }

  resultDurable(index: number): Promise<void> | undefined {
    return this.list[index]?.recording
  }

  refusal(): { readonly error: unknown } | undefined {
    return this.records.refusal()
  }

  messageRecorded(seq: number): void {
    if (this.message.kind !== 'pending') return
    this.message = { kind: 'recorded', seq }
    const { records, list } = this
    // Appended in model order, back to back: an asynchronous session numbers them in call order.
    try {
      for (let index = 0; index < this.calls.announced; index++) records.record(list[index]!, seq)
    } catch (error) {
      this.broken = { error }
    }
    const pending = records.last()
    if (pending === undefined) return this.release()
    pending.then(
      () => this.release(),
      (error: unknown) => {
        this.broken ??= { error }
        this.release()
      },
    )
  }

  messageRefused(): void {
    if (this.message.kind !== 'pending') return
    this.message = { kind: 'refused' }
    this.release()
    this.lates.refuse()
  }

  recordApprovalRequest(index: number, extra: ApprovalExtra): number | Promise<number> {
    if (this.message.kind !== 'pending') return this.requestApproval(index, extra)
    return this.landing().then(() => this.requestApproval(index, extra))
  }

  messageLanding(): Promise<void> | undefined {
    return this.holding ? this.landing() : undefined
  }
}

export function createToolCallLedger(options: ToolCallLedgerOptions): ToolCallLedger {
  return new StepLedger(options)
}
