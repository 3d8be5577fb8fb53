import type { AssistantMessage, TokenUsage } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { ZERO_USAGE, addUsage, readAssistantMessage, readTurnEnd, turnOf } from './session-records.ts'
import type { TurnEndEventData } from '../base/types.ts'

/** What the session says about its last turn. */
export interface TurnRecord {
  readonly turn: number
  /** The `turn/end` data; `undefined` while the turn is unfinished (still running, or a process died). */
  readonly end: TurnEndEventData | undefined
  /** Model steps recorded (the highest `assistant/message` step of the turn). */
  readonly steps: number
  readonly lastAssistant: AssistantMessage | undefined
  /** Seq of the `assistant/message` event of `lastAssistant`. */
  readonly lastAssistantSeq: number | undefined
  readonly usage: TokenUsage
}

/** The last `turn/start` and what followed it for that turn; `undefined` for a session with no turn. */
export function readLastTurn(events: readonly SessionEvent[]): TurnRecord | undefined {
  let start = -1
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'turn/start') {
      start = i
      break
    }
  }
  if (start < 0) return undefined
  const turn = turnOf(events[start]!)
  let end: TurnEndEventData | undefined
  let steps = 0
  let lastAssistant: AssistantMessage | undefined
  let lastAssistantSeq: number | undefined
  let usage = ZERO_USAGE
  for (const event of events.slice(start + 1)) {
    if (event.type === 'assistant/message') {
      const data = readAssistantMessage(event)
      if (data.turn !== turn) continue
      steps = Math.max(steps, data.step)
      lastAssistant = data.message
      lastAssistantSeq = event.seq
      usage = addUsage(usage, data.usage)
    } else if (event.type === 'turn/end' && turnOf(event) === turn) {
      end = readTurnEnd(event)
    }
  }
  return { turn, end, steps, lastAssistant, lastAssistantSeq, usage }
}
