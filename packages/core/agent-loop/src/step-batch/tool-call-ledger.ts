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
import { createLateOutcomeLedger } from './late-outcome-ledger.ts'
import { createCallRecords } from './call-records.ts'

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

export function createToolCallLedger(options: {
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
}): ToolCallLedger {
  const { session, turn, step, calls, lateFailed, firstCallSeq, idempotencyScope } = options
  const { list } = calls
  let message: LedgerMessage | { readonly kind: 'refused' } = options.message
  /** Why held-back calls could not be recorded when the message landed. */
  let broken: { readonly error: unknown } | undefined
  /** Until the message is recorded and the held-back calls with it, results wait for `landed`. */
  let holding = options.message.kind === 'pending'
  let landed: Promise<void> | undefined
  let land: (() => void) | undefined
  const landing = (): Promise<void> => (landed ??= new Promise<void>((resolve) => (land = resolve)))
  let settled = false
  const lates = createLateOutcomeLedger({ session, turn, step, calls, lateFailed })
  const records = createCallRecords({ session, turn, step, firstCallSeq, idempotencyScope })

  /** What each result's data is built from, filled in place (`toolResultDataOf`). */
  const resultFields = toolResultFields()
  const messageSeq = (): number | undefined => (message.kind === 'recorded' ? message.seq : undefined)
  const idOf = (index: number): string | number => list[index]?.block.id ?? index

  /** The call whose result (or approval request) comes next, recorded as `tool/call`; else throws. */
  const nextToAnswer = (index: number, what: 'result' | 'approval request'): StepCall => {
    const { issued } = calls
    if (index !== issued) {
      // An earlier result could not be recorded: writing this one would break model order (T25).
      const missing = what === 'result' ? 'none' : 'no result'
      throw new AgentLoopError({
        code: 'UNRECORDED_RESULTS',
        kind: 'system',
        message: `executeToolCalls: not recording the ${what} of "${idOf(index)}" while "${idOf(issued)}" has ${missing}`,
      })
    }
    const call = list[index]
    if (call?.callSeq === undefined) {
      if (broken !== undefined) throw broken.error
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

  // The waits below live in functions of their own (`appendAfter`, `followResult`): a closure in
  // `append` itself would make every call, the synchronous ones too, allocate its variables' context.
  const append = (index: number, result: ToolExecutionResult): void | Promise<void> => {
    if (message.kind === 'refused') return
    const refused = records.refusal()
    if (refused !== undefined) throw refused.error
    const durable = list[index]?.durable
    if (durable !== undefined) return appendAfter(durable, index, result)
    const call = nextToAnswer(index, 'result')
    // what `appendToolResult` records, built positionally (no options object per call)
    const data = toolResultDataOf(resultFields, turn, step, call.block.id, result, options.timings(call))
    const appended = appendCiting(session, 'tool/result', data, call.callSeq!, true)
    if (!isPromiseLike(appended)) return answer(call, appended.seq)
    followResult(call, appended)
  }

  /** `append` once `durable` (the call's `tool/call`, or the message it waits for) settled. */
  const appendAfter = (durable: Promise<void>, index: number, result: ToolExecutionResult): Promise<void> =>
    durable.then(() => append(index, result))

  /**
   * An asynchronous session's `tool/result` append, not waited for here: the next result may join
   * the same commit (T61). Later gates, the call's end and `settle` wait for it; a refusal fails the
   * step (`refusal`).
   */
  const followResult = (call: StepCall, appended: PromiseLike<{ readonly seq: number }>): void => {
    calls.issue(call)
    const recording = records.follow(Promise.resolve(appended).then((recorded) => answer(call, recorded.seq)))
    recording.then(() => {
      if (call.recording === recording) call.recording = undefined
    }, noop)
    call.recording = recording
  }

  const answer = (call: StepCall, resultSeq: number): void => {
    calls.answer(call, resultSeq)
    lates.answered(call)
  }

  /** Held-back calls are recorded (or refused): results may follow now. */
  const release = (): void => {
    holding = false
    land?.()
  }

  const requestApproval = (
    index: number,
    extra: Parameters<ToolCallLedger['recordApprovalRequest']>[1],
  ): MaybePromise<number> => {
    if (message.kind === 'refused') throw new Error('the assistant message of its step was not recorded')
    const durable = list[index]?.durable
    if (durable !== undefined) return durable.then(() => requestApproval(index, extra))
    const call = nextToAnswer(index, 'approval request')
    const { block } = call
    const data: ApprovalRequestEventData = {
      turn,
      step,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      ...(extra.contexts.length === 0 ? {} : { contexts: [...extra.contexts] }),
      ...(extra.concludesTurn ? { concludesTurn: true } : {}),
    }
    return andThen(session.append('approval/request', data, { sourceEventSeqs: [call.callSeq!] }), seqOf)
  }

  return {
    recordCall(index, mode) {
      if (index !== calls.announced) {
        throw new AgentLoopError({
          code: 'INVALID_ARGUMENT',
          kind: 'system',
          message: `executeToolCalls: the scheduler started call ${index} out of model order (expected ${calls.announced})`,
        })
      }
      const call = list[index]!
      call.mode = mode
      if (message.kind !== 'recorded') {
        calls.announce()
        return
      }
      // a call the session refused stays unannounced: the next one is then refused as out of order
      if (broken !== undefined) throw broken.error
      records.record(call, messageSeq())
      calls.announce()
    },

    durable: (index) => list[index]?.durable,

    recordResult(index, result) {
      if (!holding) return append(index, result)
      return appendAfter(landing(), index, result)
    },

    recordLateOutcome(index, outcome) {
      const call = list[index]
      if (
        !settled &&
        call !== undefined &&
        call.resultSeq === undefined &&
        message.kind !== 'refused' &&
        index < calls.announced
      ) {
        lates.hold(call, outcome)
        return
      }
      return lates.record(index, outcome)
    },

    settle() {
      settled = true
      const pending = records.last()
      if (pending === undefined) return lates.settle()
      const then = (): void | Promise<void> => lates.settle()
      return pending.then(then, then)
    },

    resultDurable: (index) => list[index]?.recording,
    refusal: () => records.refusal(),

    messageRecorded(seq) {
      if (message.kind !== 'pending') return
      message = { kind: 'recorded', seq }
      // Appended in model order, back to back: an asynchronous session numbers them in call order.
      try {
        for (let index = 0; index < calls.announced; index++) records.record(list[index]!, seq)
      } catch (error) {
        broken = { error }
      }
      const pending = records.last()
      if (pending === undefined) return release()
      pending.then(release, (error: unknown) => {
        broken ??= { error }
        release()
      })
    },

    messageRefused() {
      if (message.kind !== 'pending') return
      message = { kind: 'refused' }
      release()
      lates.refuse()
    },

    recordApprovalRequest(index, extra) {
      if (message.kind !== 'pending') return requestApproval(index, extra)
      return landing().then(() => requestApproval(index, extra))
    },

    messageLanding: () => (holding ? landing() : undefined),
  }
}
