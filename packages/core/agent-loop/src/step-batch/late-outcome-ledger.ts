import type { AnySession } from '@deepseek-ai/dsh-session'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from '../base/errors.ts'
import { isPromiseLike, type MaybePromise } from '../base/maybe-async.ts'
import { appendToolLateOutcome } from '../log/append-tool-late-outcome.ts'
import type { StepCall, StepCalls } from './step-calls.ts'

/**
 * The `tool/late-outcome` side of the ledger: an outcome cites its call and result, so one that
 * comes before the result is recorded is held on the call (`StepCall.heldLate`) until then, or until
 * the batch settles (then it cites its call only).
 */
export interface LateOutcomeLedger {
  /** Appends `tool/late-outcome` for call `index` now; throws when the call was never recorded. */
  record(index: number, outcome: LateToolOutcome): void | Promise<void>
  /** Holds `outcome` on `call` until its result is recorded. */
  hold(call: StepCall, outcome: LateToolOutcome): void
  /** `call`'s result was recorded: its held outcome (if any) is recorded now, not awaited. */
  answered(call: StepCall): void
  /** The batch is over: every held outcome is recorded; the promise never rejects. */
  settle(): void | Promise<void>
  /** The step's message was refused: every held outcome goes to `lateFailed`. */
  refuse(): void
}

/** What `createLateOutcomeLedger` is given. */
export interface LateOutcomeLedgerOptions {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  readonly calls: StepCalls
  /** A late outcome held back could not be recorded after all. */
  readonly lateFailed: (index: number, outcome: LateToolOutcome, error: unknown) => void
}

/** A class, its methods made once (`answered` runs per call): see `StepLedger` (tool-call-ledger.ts). */
class StepLateOutcomes implements LateOutcomeLedger {
  private readonly options: LateOutcomeLedgerOptions

  constructor(options: LateOutcomeLedgerOptions) {
    this.options = options
  }

  record(index: number, outcome: LateToolOutcome): void | Promise<void> {
    const { session, turn, step, calls } = this.options
    const call = calls.list[index]
    if (call?.callSeq === undefined) {
      throw new AgentLoopError({
        code: 'INVALID_ARGUMENT',
        kind: 'system',
        message: `executeToolCalls: a late outcome for call ${index}, which was never recorded as tool/call`,
      })
    }
    const seq = appendToolLateOutcome({
      session,
      turn,
      step,
      callId: call.block.id,
      callSeq: call.callSeq,
      resultSeq: call.resultSeq,
      outcome,
    })
    return isPromiseLike(seq) ? seq.then(() => undefined) : undefined
  }

  /** Records a late outcome; a failure goes to `lateFailed`. The promise never rejects. */
  private recordSafely(index: number, outcome: LateToolOutcome): MaybePromise<void> {
    const { lateFailed } = this.options
    try {
      const recorded = this.record(index, outcome)
      if (recorded !== undefined)
        return recorded.then(undefined, (error: unknown) => lateFailed(index, outcome, error))
    } catch (error) {
      lateFailed(index, outcome, error)
    }
    return undefined
  }

  hold(call: StepCall, outcome: LateToolOutcome): void {
    this.options.calls.hold(call, outcome)
  }

  answered(call: StepCall): void {
    const outcome = this.options.calls.takeHeld(call)
    // Not awaited: a late outcome never holds up the next commit.
    if (outcome !== undefined) void this.recordSafely(call.index, outcome)
  }

  settle(): void | Promise<void> {
    const pending: Promise<void>[] = []
    for (const { call, outcome } of this.options.calls.drainHeld()) {
      const recorded = this.recordSafely(call.index, outcome)
      if (recorded !== undefined) pending.push(recorded)
    }
    if (pending.length > 0) return Promise.all(pending).then(() => undefined)
  }

  refuse(): void {
    const { calls, lateFailed } = this.options
    for (const { call, outcome } of calls.drainHeld()) {
      lateFailed(call.index, outcome, new Error('the assistant message of its step was not recorded'))
    }
  }
}

export function createLateOutcomeLedger(options: LateOutcomeLedgerOptions): LateOutcomeLedger {
  return new StepLateOutcomes(options)
}
