import { describeValue, type Message } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { AgentLoopError, invalidArgument } from './errors.ts'
import { answeredCallId, isNestedCall } from './nested-calls.ts'

const ROLES = { 'user/message': 'user', 'assistant/message': 'assistant', 'tool/result': 'tool' } as const

type MessageEventType = keyof typeof ROLES

function isMessageEvent(type: string): type is MessageEventType {
  return Object.prototype.hasOwnProperty.call(ROLES, type)
}

/**
 * The model-facing history a session records, in log order: `user/message` and `assistant/message`
 * events give their messages, each `tool/result` its tool message. Other events (`turn/*`,
 * `tool/call`, anything unknown) add nothing, nor do the results of nested calls (a `run_code`
 * program's: the model never issued them; it sees the program's output as `run_code`'s result).
 * The messages are the session's frozen objects.
 * Throws `INVALID_SESSION` naming the event when a message event carries no message of its role.
 * @example
 * const messages = historyFromSession(session.events())
 */
export function historyFromSession(events: readonly SessionEvent[]): Message[] {
  if (!Array.isArray(events)) {
    throw invalidArgument(
      `historyFromSession(events): events must be an array of session events, got ${describeValue(events)}`,
    )
  }
  const messages: Message[] = []
  let nested: Set<string> | undefined
  for (const event of events) {
    const type: unknown = (event as Partial<SessionEvent> | null)?.type
    if (type === 'tool/call') {
      const callId = isNestedCall(event)
      if (callId !== undefined) (nested ??= new Set()).add(callId)
      continue
    }
    if (typeof type !== 'string' || !isMessageEvent(type)) continue
    const message = (event.data as { message?: Partial<Message> } | null)?.message
    if (
      typeof message !== 'object' ||
      message === null ||
      message.role !== ROLES[type] ||
      !Array.isArray(message.content)
    ) {
      throw new AgentLoopError({
        code: 'INVALID_SESSION',
        kind: 'system',
        message: `historyFromSession(events): ${type} event seq ${String(event.seq)} must carry a ${ROLES[type]} message in data.message, got ${describeValue(message)}`,
      })
    }
    if (nested !== undefined && type === 'tool/result' && nested.has(answeredCallId(message) ?? '')) continue
    messages.push(message as Message)
  }
  return messages
}
