import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { pendingApprovals, type AnySession } from '@deepseek-ai/dsh-session'
import { AgentLoopError } from '../base/errors.ts'
import { readLastTurn } from '../log/read-last-turn.ts'
import { sessionCallIndex, unrecordedCount } from '../log/session-call-index.ts'
import { newSessionId, recordedSessionId } from '../log/session-id-of.ts'
import type { TurnStart } from './run-turn.ts'
import { ZERO_USAGE } from '../log/session-records.ts'
import type { TurnStartEventData, UserMessageEventData } from '../base/types.ts'

/**
 * Opens the next turn of `session`: refuses a session that ends unfinished (`RESUME_REQUIRED`: a
 * new turn after unanswered or unrecorded calls would never replay), records `turn/start`, and leaves the
 * `user/message` to the turn's prelude so a failure there ends the turn with `error`.
 */
export async function beginNewTurn(
  session: AnySession,
  message: UserMessage,
  where: string,
): Promise<TurnStart> {
  const events = session.events()
  const last = readLastTurn(events)
  const open = last !== undefined && last.end === undefined
  // read on from the last turn's reading of the log: a turn costs what was appended since
  const calls = sessionCallIndex(session, events)
  const unanswered = calls.open.size
  const unrecorded = unrecordedCount(calls, last)
  const waiting = pendingApprovals(events)[0]
  if (waiting !== undefined) {
    throw new AgentLoopError({
      code: 'RESUME_REQUIRED',
      message:
        `${where}: the session is paused: turn ${waiting.turn} waits for the approval of call ` +
        `${JSON.stringify(waiting.callId)} (${waiting.name}${waiting.reason === undefined ? '' : `: ${waiting.reason}`}); ` +
        "answer it with agent.resume({ approval: { callId, answer: 'once' | 'session' | 'reject' } })",
    })
  }
  if (open || unanswered > 0 || unrecorded > 0) {
    throw new AgentLoopError({
      code: 'RESUME_REQUIRED',
      message:
        `${where}: the session ends in an unfinished turn` +
        (open ? ` (turn ${last.turn} has no turn/end)` : '') +
        (unanswered > 0 ? ` with ${unanswered} unanswered tool call(s)` : '') +
        (unrecorded > 0 ? ` with ${unrecorded} tool call(s) of its last step never recorded` : '') +
        '; call agent.resume() first',
    })
  }
  const turn = (last?.turn ?? 0) + 1
  // T49: the first turn names the session, and every later process derives its keys from that
  const named = recordedSessionId(events) !== undefined || events.some((event) => event.type === 'turn/start')
  const turnStart: TurnStartEventData = named ? { turn } : { turn, sessionId: newSessionId() }
  await session.append('turn/start', turnStart)
  const input: UserMessageEventData = { turn, step: 1, message, source: 'user' }
  return {
    turn,
    resumed: false,
    steps: 0,
    lastMessage: undefined,
    usage: ZERO_USAGE,
    prelude: () => session.append('user/message', input),
  }
}
