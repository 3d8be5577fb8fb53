import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { PendingElicitation } from '../base/elicitation-types.ts'
import { resultCallId } from '../log/session-records.ts'
import { recordedExchanges } from './exchange-records.ts'

/** A pending elicitation as the log has it (whether answering re-runs the call is the tools' to say). */
export type RecordedElicitation = Omit<PendingElicitation, 'rerun'>

/** The unanswered questions of calls without a result, in log order. */
export function pendingElicitations(events: readonly SessionEvent[]): RecordedElicitation[] {
  const answered = new Set<string>()
  for (const event of events) if (event.type === 'tool/result') answered.add(resultCallId(event))
  return recordedExchanges(events, 'elicitation')
    .filter((entry) => entry.answer === undefined && !answered.has(entry.data.callId))
    .map(({ seq, data }) => ({
      turn: data.turn,
      step: data.step,
      callId: data.callId,
      name: data.name,
      source: data.source,
      request: data.request,
      requestSeq: seq,
    }))
}
