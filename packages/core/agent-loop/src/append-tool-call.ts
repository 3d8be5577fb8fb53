import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { Session, ToolCallEventData } from '@deepseek-ai/dsh-session'
import type { ExecutionMode } from '@deepseek-ai/dsh-tools'

/**
 * Records one call as `tool/call` (T28): `{ turn, step, callId, name, arguments }`, `arguments`
 * being the raw string the model wrote, plus `mode` when given (how the scheduler runs it). With
 * `messageSeq` (the seq of the `assistant/message` that holds the call) the event cites it:
 * `sourceEventSeqs: [messageSeq]` (T40). Returns the event's seq, which the result must cite.
 * Throws whatever the session throws; nothing is recorded then.
 */
export function appendToolCall(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly block: ToolCallBlock
  readonly messageSeq?: number
  readonly mode?: ExecutionMode
}): number {
  const { session, turn, step, block, messageSeq, mode } = options
  const data: ToolCallEventData = {
    turn,
    step,
    callId: block.id,
    name: block.name,
    arguments: block.arguments,
    ...(mode === undefined ? {} : { mode }),
  }
  if (messageSeq === undefined) return session.append('tool/call', data).seq
  return session.append('tool/call', data, { sourceEventSeqs: [messageSeq] }).seq
}
