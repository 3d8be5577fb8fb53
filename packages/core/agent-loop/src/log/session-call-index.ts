import { toolCallsOf } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { incrementalLogRead } from './incremental-log-read.ts'
import type { TurnRecord } from './read-last-turn.ts'
import { extendGrantRead, newGrantRead, type SessionGrant } from './session-grants.ts'
import { checkedToolCallData, resultCallId } from './session-records.ts'

/** What a new turn asks of the whole log about its calls, read on from turn to turn. */
export interface CallIndex {
  /** callId → its first `tool/call`, while no `tool/result` answers it (`findUnansweredCalls`). */
  readonly open: Map<string, SessionEvent>
  /** `turn:step` → the model ids of the calls recorded in that step, nested calls left out (`findUnrecordedCalls`). */
  readonly recorded: Map<string, Set<string>>
}

const newCallIndex = (): CallIndex => ({ open: new Map(), recorded: new Map() })

/** Reads `events[from…]` into `index`: each call checked as the full scans check it, in log order. */
function extendCallIndex(index: CallIndex, events: readonly SessionEvent[], from: number): void {
  const { open, recorded } = index
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'tool/call') {
      const call = checkedToolCallData(event)
      const callId = call.callId as string
      if (!open.has(callId)) open.set(callId, event)
      if (typeof call.parentCallId === 'string') continue
      const key = `${call.turn as number}:${call.step as number}`
      let ids = recorded.get(key)
      if (ids === undefined) recorded.set(key, (ids = new Set()))
      ids.add(typeof call.modelCallId === 'string' ? call.modelCallId : callId)
    } else if (event.type === 'tool/result') {
      open.delete(resultCallId(event))
    }
  }
}

/**
 * The calls of `session`'s log (`events`), indexed once and read on from turn to turn: a new turn
 * costs what was appended since the last one, not a scan of the whole log (`incrementalLogRead`).
 * `open.size` is `findUnansweredCalls(events).length`; `unrecordedCount` is `findUnrecordedCalls`'
 * length (test/turn-checks.property.test.ts holds both to the full scans).
 */
export const sessionCallIndex = incrementalLogRead(newCallIndex, extendCallIndex)

/** How many calls of the last turn's last assistant message were never recorded (`findUnrecordedCalls`). */
export function unrecordedCount(index: CallIndex, last: TurnRecord | undefined): number {
  if (last?.lastAssistant === undefined) return 0
  const recorded = index.recorded.get(`${last.turn}:${last.steps}`)
  let count = 0
  for (const block of toolCallsOf(last.lastAssistant)) if (recorded?.has(block.id) !== true) count++
  return count
}

const grantsOf = incrementalLogRead(newGrantRead, extendGrantRead)

/**
 * `readSessionGrants(events)` for the log of `session`, read on from the last turn's reading
 * (`incrementalLogRead`); an array of each call's own (test/turn-checks.property.test.ts).
 */
export function sessionGrants(session: object, events: readonly SessionEvent[]): SessionGrant[] {
  return grantsOf(session, events).grants.slice()
}
