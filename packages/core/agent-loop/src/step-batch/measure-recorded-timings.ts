import type { ToolCallRecordedTimings } from '@deepseek-ai/dsh-session'

/** The moments (`performance.now()`) a call passed through the scheduler, as far as it got. */
export interface CallTimePoints {
  readonly queuedAt: number | undefined
  readonly startedAt: number | undefined
  readonly settledAt: number | undefined
}

// a tenth of a millisecond is all a log needs, and it keeps the line short
const tenth = (value: number): number => Math.max(0, Math.round(value * 10) / 10)

/**
 * What the session records on a call's `tool/result` (T28), measured up to `now` (the result is
 * being appended): how long it queued, ran and waited to commit. Undefined for a call that never
 * started. One rule for the step's calls and a program's nested calls (T33), so the timeline reads
 * both alike.
 */
export function measureRecordedTimings(
  points: CallTimePoints,
  now: number,
): ToolCallRecordedTimings | undefined {
  const start = points.startedAt
  if (start === undefined) return undefined
  const settled = points.settledAt ?? now
  return {
    queueMs: tenth(start - (points.queuedAt ?? start)),
    runMs: tenth(settled - start),
    commitMs: tenth(now - settled),
  }
}
