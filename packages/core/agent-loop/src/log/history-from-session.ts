import { describeValue, type Message, type ToolMessage } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import { answeredCallId, isNestedCall, renamedCall } from './nested-calls.ts'

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
 * A call the loop recorded under another id than the model's (`modelCallId` on its `tool/call`: the
 * model repeated an id, T28) is answered with the model's id, the one its assistant message holds,
 * so the provider gets back what it sent. The messages are the session's frozen objects, except
 * those answers, which are frozen copies.
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
  /** callId → the model's id, for calls recorded under another. */
  let renamed: Map<string, string> | undefined
  for (const event of events) {
    const type: unknown = (event as Partial<SessionEvent> | null)?.type
    if (type === 'tool/call') {
      const callId = isNestedCall(event)
      if (callId !== undefined) (nested ??= new Set()).add(callId)
      else {
        const ids = renamedCall(event)
        if (ids !== undefined) (renamed ??= new Map()).set(ids.callId, ids.modelCallId)
      }
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
    if (type === 'tool/result' && (nested !== undefined || renamed !== undefined)) {
      const callId = answeredCallId(message) ?? ''
      if (nested?.has(callId) === true) continue
      const modelCallId = renamed?.get(callId)
      if (modelCallId !== undefined) {
        messages.push(answeringAs(message as ToolMessage, modelCallId))
        continue
      }
    }
    messages.push(message as Message)
  }
  return messages
}

/** A tool message answering `callId` instead (its one result block re-labelled), frozen. */
function answeringAs(message: ToolMessage, callId: string): ToolMessage {
  const [block, ...rest] = message.content
  return Object.freeze({
    ...message,
    content: Object.freeze([Object.freeze({ ...block!, callId }), ...rest]),
  })
}
