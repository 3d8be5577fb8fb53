import type { AnySession, AsyncSession, Session } from '@deepseek-ai/dsh-session'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
import { andThen, seqOf, type MaybePromise } from '../base/maybe-async.ts'
import type { ToolLateOutcomeEventData } from '../base/types.ts'

/** The options of `appendToolLateOutcome`, for a session of type `S`. */
export interface AppendToolLateOutcomeOptions<S extends AnySession = AnySession> {
  readonly session: S
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly callSeq: number
  readonly resultSeq: number | undefined
  readonly outcome: LateToolOutcome
}

/**
 * Records what the body of a call ended with after its result was already recorded (a `TIMEOUT`,
 * or `ABORTED` after the abort grace, while the body still ran) as `tool/late-outcome`:
 * `{ turn, step, callId, outcome }`, citing `[callSeq, resultSeq]` (only `[callSeq]` when the
 * result was never recorded). It is not a model-facing message: `historyFromSession` and
 * `verifyToolPairs` skip it; it exists so that nothing the body did is lost. Throws or rejects with
 * whatever the session does; nothing is recorded then.
 */
export function appendToolLateOutcome(options: AppendToolLateOutcomeOptions<Session>): number
export function appendToolLateOutcome(options: AppendToolLateOutcomeOptions<AsyncSession>): Promise<number>
export function appendToolLateOutcome(options: AppendToolLateOutcomeOptions): MaybePromise<number>
export function appendToolLateOutcome(options: AppendToolLateOutcomeOptions): MaybePromise<number> {
  const { session, turn, step, callId, callSeq, resultSeq, outcome } = options
  const data: ToolLateOutcomeEventData = { turn, step, callId, outcome: outcomeData(outcome) }
  const sourceEventSeqs = resultSeq === undefined ? [callSeq] : [callSeq, resultSeq]
  return andThen(session.append('tool/late-outcome', data, { sourceEventSeqs }), seqOf)
}

function outcomeData(outcome: LateToolOutcome): ToolLateOutcomeEventData['outcome'] {
  switch (outcome.kind) {
    case 'value':
      return outcome.value === undefined ? { kind: 'value' } : { kind: 'value', value: outcome.value }
    case 'error':
      return { kind: 'error', message: outcome.message }
    case 'abandoned':
      return { kind: 'abandoned' }
    default: {
      const never: never = outcome
      return never
    }
  }
}
