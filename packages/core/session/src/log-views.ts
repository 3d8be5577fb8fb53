import { Stamp } from './tool-events/proven-data.ts'
import type { SessionEvent } from './types.ts'

/**
 * What was read of one session's log by readers that go on from where they stopped (today
 * `pendingApprovals`): one record per session, shared by every view of its log.
 */
export interface LogReadings {
  /** `pendingApprovals`' reading; made by its first call on a view of this log. */
  approvals: object | undefined
}

/**
 * The mark of a view a session's `events()` handed out, holding the readings of the log it shows: a
 * private class field stamped onto the array before it is frozen (the `Stamp` of `proven-data.ts`).
 * It cannot be forged, copied (a `slice` of a view is an unmarked array) or passed through a Proxy,
 * and `#readings in value` is one fast check; a weak map would cost an entry per view (and an
 * ephemeron for the garbage collector to trace).
 */
class LogView extends Stamp {
  readonly #readings: LogReadings

  constructor(target: object, readings: LogReadings) {
    super(target)
    this.#readings = readings
  }

  static of(value: object): LogReadings | undefined {
    return #readings in value ? (value as unknown as LogView).#readings : undefined
  }
}

/** A fresh record of readings, one per session (its log). */
export function newLogReadings(): LogReadings {
  return { approvals: undefined }
}

/**
 * `events()`' frozen view of `log`, registered under `readings`. A registered view is a prefix of an
 * append-only log whose events are frozen when built (T58) and never change or go away: a reader
 * may read it on from where it read the same log's earlier view, without comparing the events it
 * read before. A view is made once per change of the log.
 */
export function logView(log: readonly SessionEvent[], readings: LogReadings): readonly SessionEvent[] {
  const view = log.slice()
  new LogView(view, readings)
  return Object.freeze(view)
}

/** The readings of the log `events` is a view of, or `undefined` for any array no session made. */
export function readingsOf(events: readonly SessionEvent[]): LogReadings | undefined {
  return typeof events === 'object' && events !== null ? LogView.of(events) : undefined
}
