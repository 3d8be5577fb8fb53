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
  into: RecordedTimingsFields = recordedTimingsFields(),
): ToolCallRecordedTimings | undefined {
  const start = points.startedAt
  if (start === undefined) return undefined
  const settled = points.settledAt ?? now
  into.queueMs = tenth(start - (points.queuedAt ?? start))
  into.runMs = tenth(settled - start)
  into.commitMs = tenth(now - settled)
  return into
}

/**
 * Timings filled in place (`measureRecordedTimings(…, into)`): a step's results share one, since the
 * session's `toolResultEventData` copies the three numbers and keeps nothing of the object (a fresh
 * object and its three boxed numbers per result were ~90 B of every timed call).
 */
export type RecordedTimingsFields = {
  -readonly [K in keyof ToolCallRecordedTimings]: ToolCallRecordedTimings[K]
}

/** A fresh `RecordedTimingsFields`. */
export function recordedTimingsFields(): RecordedTimingsFields {
  return { queueMs: 0, runMs: 0, commitMs: 0 }
}
