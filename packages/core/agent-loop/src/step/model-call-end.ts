import type { ModelCallEndEvent } from '../base/types.ts'
import type { ModelOutcome } from './call-model.ts'

/**
 * The `model-call-end` event of one attempt at the model, from its outcome: one builder for plain
 * and streamed steps, so the fields are the same wherever a call ends.
 */
export function modelCallEnd(options: {
  readonly turn: number
  readonly step: number
  readonly attempt: number
  readonly startedAt: number
  readonly endedAt: number
  readonly outcome: ModelOutcome
}): ModelCallEndEvent {
  const { turn, step, attempt, startedAt, endedAt, outcome } = options
  const durationMs = endedAt - startedAt
  // A literal per outcome, every field named: `{ ...base, outcome }` (a spread followed by more
  // properties) cost about 1 µs per model call on Node 20 (DEVELOPERS.md).
  switch (outcome.kind) {
    case 'ok': {
      const { message, finishReason, usage } = outcome.response
      return {
        type: 'model-call-end',
        turn,
        step,
        at: endedAt,
        attempt,
        durationMs,
        outcome: 'ok',
        message,
        finishReason,
        usage,
      }
    }
    case 'error':
      return {
        type: 'model-call-end',
        turn,
        step,
        at: endedAt,
        attempt,
        durationMs,
        outcome: 'error',
        error: outcome.error,
      }
    case 'aborted':
      return { type: 'model-call-end', turn, step, at: endedAt, attempt, durationMs, outcome: 'aborted' }
    default: {
      const never: never = outcome
      return never
    }
  }
}
