import type { SessionEvent } from './types.ts'

/**
 * What was read of one session's log by readers that go on from where they stopped (today
 * `pendingApprovals`): one record per session, shared by every view of its log.
 */
export interface LogReadings {
  /** `pendingApprovals`' reading; made by its first call on a view of this log. */
  approvals: object | undefined
}

/** Each frozen view a session's `events()` handed out, to the readings of the log it shows. */
const readingsOfView = new WeakMap<readonly SessionEvent[], LogReadings>()

/** A fresh record of readings, one per session (its log). */
export function newLogReadings(): LogReadings {
  return { approvals: undefined }
}

/**
 * `events()`' frozen view of `log`, registered under `readings`. A registered view is a prefix of an
 * append-only log whose events are frozen when built (T58) and never change or go away: a reader
 * may read it on from where it read the same log's earlier view, without comparing the events it
 * read before. One weak-map entry per view, and a view is made once per change of the log.
 */
export function logView(log: readonly SessionEvent[], readings: LogReadings): readonly SessionEvent[] {
  const view = Object.freeze(log.slice())
  readingsOfView.set(view, readings)
  return view
}

/** The readings of the log `events` is a view of, or `undefined` for any array no session made. */
export function readingsOf(events: readonly SessionEvent[]): LogReadings | undefined {
  return readingsOfView.get(events)
}
