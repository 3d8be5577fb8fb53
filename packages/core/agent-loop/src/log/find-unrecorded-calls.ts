import { toolCallsOf, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { TurnRecord } from './read-last-turn.ts'
import { checkedToolCallData } from './session-records.ts'

/**
 * The tool calls of the last turn's last assistant message that were never recorded as `tool/call`
 * in that turn and step: a process that stopped before the batch began, or a batch whose session
 * refused to record them. Until they are recorded and answered, the history would show the model
 * calls without results, which providers refuse.
 */
export function findUnrecordedCalls(
  events: readonly SessionEvent[],
  last: TurnRecord | undefined,
): ToolCallBlock[] {
  if (last?.lastAssistant === undefined) return []
  // the ids of the message's blocks that were recorded: the model's id, kept as modelCallId when the
  // loop recorded the call under another; a nested call is in no message, whatever its id
  const recorded = new Set<string>()
  for (const event of events) {
    if (event.type !== 'tool/call') continue
    // checked as readToolCall checks it, without a copy of each call of the log
    const call = checkedToolCallData(event)
    if (call.turn === last.turn && call.step === last.steps && typeof call.parentCallId !== 'string')
      recorded.add(typeof call.modelCallId === 'string' ? call.modelCallId : (call.callId as string))
  }
  return toolCallsOf(last.lastAssistant).filter((block) => !recorded.has(block.id))
}
