import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { ContextPolicy, HistoryItem } from '../base/context-types.ts'
import { fitToolOutputs } from './fit-tool-output.ts'
import { extendHistoryBuild, historyBuildItems, newHistoryBuild } from './history-items.ts'
import { incrementalLogRead } from './incremental-log-read.ts'

/** One history build per session: each model step of each turn extends it with what was appended since. */
const buildOf = incrementalLogRead(newHistoryBuild, extendHistoryBuild)

/**
 * `historyItemsFromSession(events)` for the log of `session`, built incrementally: what was built
 * for the session's earlier steps and turns is kept, and only the events appended since are read
 * (by this loop or by anyone else appending to the session); a log that does not continue the one
 * read before is read from its start (`incrementalLogRead`). The items equal a full rebuild's,
 * message for message (test/session-history.property.test.ts), in an array of each call's own.
 */
export function sessionHistoryItems(session: object, events: readonly SessionEvent[]): HistoryItem[] {
  return historyBuildItems(buildOf(session, events))
}

/**
 * `fitToolOutputs(sessionHistoryItems(session, events), policy, readable)`: what the model is shown
 * of the session's history (T56). While no tool message read so far is longer than `maxChars` (and
 * no compaction replaced one, and no `toModelContent` hook is to see each), every item stays as it
 * is: the history is not walked for a cut. test/session-history.property.test.ts holds it to the
 * full fit.
 */
export function sessionFittedHistory(
  session: object,
  events: readonly SessionEvent[],
  policy: ContextPolicy['toolOutput'],
  readable: boolean,
): HistoryItem[] {
  const build = buildOf(session, events)
  const items = historyBuildItems(build)
  if (
    policy.toModelContent === undefined &&
    build.compactions === undefined &&
    build.longestToolText <= policy.maxChars
  )
    return items
  return fitToolOutputs(items, policy, readable)
}
