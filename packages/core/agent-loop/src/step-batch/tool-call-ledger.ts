import {
  appendCiting,
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

import type { StepCall, StepCalls } from './step-calls.ts'
import type { LedgerMessage, ToolCallLedger } from './tool-call-ledger-types.ts'

export type { LedgerMessage, ToolCallLedger } from './tool-call-ledger-types.ts'

const noop = (): void => {}

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
    const appended = appendCiting(this.session, 'tool/result', data, call.callSeq!, true)
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
