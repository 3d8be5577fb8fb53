import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { HistoryItem } from '../base/context-types.ts'
import { extendHistoryBuild, historyBuildItems, newHistoryBuild, type HistoryBuild } from './history-items.ts'

/** What was built of one session's history, and from which events (kept by reference). */
interface Built {
  readonly build: HistoryBuild
  /** The events read into `build`, in order: a later log must start with these very objects. */
  readonly read: SessionEvent[]
}

/** One build per session: each model step of each turn extends it with what was appended since. */
const builds = new WeakMap<object, Built>()

/** Whether `events` starts with the events `built` read (the same objects, in order). */
function continues(built: Built, events: readonly SessionEvent[]): boolean {
  const { read } = built
  if (events.length < read.length) return false
  for (let i = read.length - 1; i >= 0; i--) if (events[i] !== read[i]) return false
  return true
}

/**
 * `historyItemsFromSession(events)` for the log of `session`, built incrementally: what was built
 * for the session's earlier steps and turns is kept, and only the events appended since are read
 * (by this loop or by anyone else appending to the session). A log that does not start with the
 * very events read before (another log under the same session object, a rewritten one) is read
 * from its start again; so is one after a read that threw. The items equal a full rebuild's,
 * message for message (test/session-history.property.test.ts).
 */
export function sessionHistoryItems(session: object, events: readonly SessionEvent[]): HistoryItem[] {
  let built = builds.get(session)
  if (built === undefined || !continues(built, events)) {
    built = { build: newHistoryBuild(), read: [] }
    builds.set(session, built)
  }
  const from = built.read.length
  try {
    extendHistoryBuild(built.build, events, from)
  } catch (error) {
    // part of the events went into the build: it is no longer what the log gives
    builds.delete(session)
    throw error
  }
  for (let i = from; i < events.length; i++) built.read.push(events[i]!)
  return historyBuildItems(built.build)
}
