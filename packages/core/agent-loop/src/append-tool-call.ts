import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { Session, ToolCallEventData } from '@deepseek-ai/dsh-session'

/**
 * Records one call as `tool/call` (T28): `{ turn, step, callId, name, arguments }`, `arguments`
 * being the raw string the model wrote. Returns the event's seq, which the result must cite.
 * Throws whatever the session throws; nothing is recorded then.
 */
export function appendToolCall(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly block: ToolCallBlock
}): number {
  const { session, turn, step, block } = options
  const data: ToolCallEventData = {
    turn,
    step,
    callId: block.id,
    name: block.name,
    arguments: block.arguments,
  }
  return session.append('tool/call', data).seq
}
