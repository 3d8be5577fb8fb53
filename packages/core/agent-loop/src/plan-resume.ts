import { textOf, toolCallsOf } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import type { ToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import { answerInterruptedCalls } from './answer-interrupted-calls.ts'
import { readLastTurn } from './read-last-turn.ts'
import type { TurnStart } from './run-turn.ts'
import type { TurnResult } from './types.ts'

export type ResumePlan =
  | { readonly kind: 'empty' }
  | { readonly kind: 'ended'; readonly result: TurnResult }
  | { readonly kind: 'continue'; readonly start: TurnStart }

/**
 * Repairs the session (every unanswered call gets `INTERRUPTED`) and says what resuming means: nothing
 * (no turn yet), the last turn's result (it ended), or where its unfinished turn continues.
 */
export async function planResume(session: AnySession, scheduler: ToolRuntimeScheduler): Promise<ResumePlan> {
  await answerInterruptedCalls({ session, scheduler })
  const last = readLastTurn(session.events())
  if (last === undefined) return { kind: 'empty' }
  const message = last.lastAssistant
  if (last.end !== undefined) {
    const result: TurnResult = Object.freeze({
      turn: last.turn,
      reason: last.end.reason,
      steps: last.end.steps,
      message,
      text: message === undefined ? '' : textOf(message.content),
      usage: last.usage,
    })
    return { kind: 'ended', result }
  }
  // A last step without tool calls was the model's answer: the turn only lacks its turn/end.
  const answered = message !== undefined && toolCallsOf(message).length === 0
  return {
    kind: 'continue',
    start: {
      turn: last.turn,
      resumed: true,
      steps: last.steps,
      lastMessage: message,
      usage: last.usage,
      ...(answered ? { done: 'completed' as const } : {}),
    },
  }
}
