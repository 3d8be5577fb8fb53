import type { Session } from '@deepseek-ai/dsh-session'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
import type { ToolLateOutcomeEventData } from './types.ts'

/**
 * Records what the body of a call ended with after its result was already recorded (a `TIMEOUT`,
 * or `ABORTED` after the abort grace, while the body still ran) as `tool/late-outcome`:
 * `{ turn, step, callId, outcome }`, citing `[callSeq, resultSeq]` (only `[callSeq]` when the
 * result was never recorded). It is not a model-facing message: `historyFromSession` and
 * `verifyToolPairs` skip it; it exists so that nothing the body did is lost. Throws whatever the
 * session throws; nothing is recorded then.
 */
export function appendToolLateOutcome(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly callSeq: number
  readonly resultSeq: number | undefined
  readonly outcome: LateToolOutcome
}): number {
  const { session, turn, step, callId, callSeq, resultSeq, outcome } = options
  const data: ToolLateOutcomeEventData = { turn, step, callId, outcome: outcomeData(outcome) }
  const sourceEventSeqs = resultSeq === undefined ? [callSeq] : [callSeq, resultSeq]
  return session.append('tool/late-outcome', data, { sourceEventSeqs }).seq
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
