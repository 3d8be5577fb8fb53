import type { SessionEvent, ToolCallEventData } from '@deepseek-ai/dsh-session'
import { checkedToolCallData, readToolCall, resultCallId } from './session-records.ts'

export interface UnansweredCall extends ToolCallEventData {
  /** Seq of the `tool/call` event. */
  readonly seq: number
}

/** Every `tool/call` without a `tool/result` for its callId, in log order. */
export function findUnansweredCalls(events: readonly SessionEvent[]): UnansweredCall[] {
  // callId → its first tool/call; each call is checked on the way, and only the unanswered ones
  // (usually none: a new turn scans the whole log) are read into records
  const open = new Map<string, SessionEvent>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      const callId = checkedToolCallData(event).callId as string
      if (!open.has(callId)) open.set(callId, event)
    } else if (event.type === 'tool/result') {
      open.delete(resultCallId(event))
    }
  }
  const unanswered: UnansweredCall[] = []
  for (const event of open.values()) unanswered.push({ ...readToolCall(event), seq: event.seq })
  return unanswered
}
