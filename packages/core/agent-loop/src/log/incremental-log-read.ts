import type { SessionEvent } from '@deepseek-ai/dsh-session'

/** What was read of one session's log into `state`, and from which events (kept by reference). */
interface Read<S> {
  readonly state: S
  /**
   * The events read into `state`, in order: a later log must start with these very objects. The
   * array handed in when it is frozen (a session's `events()` view is), so no copy of the log is
   * kept per reader; a copy of it otherwise (its caller could change it later).
   */
  read: readonly SessionEvent[]
}

const NONE: readonly SessionEvent[] = Object.freeze([])

/**
 * A reading of session logs kept per session and extended with what was appended since: `extend`
 * reads `events[from…]` into the state `start` made. A log that does not start with the very events
 * read before (another log under the same session object, a rewritten one) is read from its start
 * again, and so is one after a read that threw (part of its events may be in the state). Each
 * reading equals a full read of the log: test/session-history.property.test.ts and
 * test/turn-checks.property.test.ts hold the two readers to their full scans.
 */
export function incrementalLogRead<S>(
  start: () => S,
  extend: (state: S, events: readonly SessionEvent[], from: number) => void,
): (session: object, events: readonly SessionEvent[]) => S {
  const reads = new WeakMap<object, Read<S>>()
  const continues = (done: Read<S>, events: readonly SessionEvent[]): boolean => {
    const { read } = done
    // the very view read last time (nothing appended since, or a second reader of one view)
    if (events === read) return true
    if (events.length < read.length) return false
    for (let i = read.length - 1; i >= 0; i--) if (events[i] !== read[i]) return false
    return true
  }
  return (session, events) => {
    let done = reads.get(session)
    if (done === undefined || !continues(done, events)) {
      done = { state: start(), read: NONE }
      reads.set(session, done)
    }
    const from = done.read.length
    try {
      extend(done.state, events, from)
    } catch (error) {
      reads.delete(session)
      throw error
    }
    if (from !== events.length) done.read = Object.isFrozen(events) ? events : events.slice()
    return done.state
  }
}
