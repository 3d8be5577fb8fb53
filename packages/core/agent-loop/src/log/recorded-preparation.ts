import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { StepPrepareEventData } from '../base/types.ts'

/**
 * What `prepareStep` chose for step `step` of turn `turn`, as the session recorded it (`step/prepare`;
 * the last one for that step, should a failed model call have made the step be prepared again).
 */
export function recordedPreparation(
  events: readonly SessionEvent[],
  turn: number,
  step: number,
): StepPrepareEventData | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type !== 'step/prepare') continue
    const data = event.data as Partial<StepPrepareEventData> | null
    if (data?.turn === turn && data.step === step) return data as StepPrepareEventData
  }
  return undefined
}
