import type { SessionEvent, ToolCallEventData } from '@deepseek-ai/dsh-session'
import { readToolCall, resultCallId } from './session-records.ts'

export interface UnansweredCall extends ToolCallEventData {
  /** Seq of the `tool/call` event. */
  readonly seq: number
}

/** Every `tool/call` without a `tool/result` for its callId, in log order. */
export function findUnansweredCalls(events: readonly SessionEvent[]): UnansweredCall[] {
  const open = new Map<string, UnansweredCall>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      const call = readToolCall(event)
      if (!open.has(call.callId)) open.set(call.callId, { ...call, seq: event.seq })
    } else if (event.type === 'tool/result') {
      open.delete(resultCallId(event))
    }
  }
  return [...open.values()]
}
