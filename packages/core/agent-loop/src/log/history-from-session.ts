import type { Message } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { historyItemsFromSession } from './history-items.ts'

/**
 * The model-facing history a session records, in log order: `user/message` and `assistant/message`
 * events give their messages, each `tool/result` its tool message. Other events (`turn/*`,
 * `tool/call`, anything unknown) add nothing, nor do the results of nested calls (a `run_code`
 * program's: the model never issued them; it sees the program's output as `run_code`'s result).
 * A call the loop recorded under another id than the model's (`modelCallId` on its `tool/call`: the
 * model repeated an id, T28) is answered with the model's id, the one its assistant message holds,
 * so the provider gets back what it sent. A repaired call is written as it ran, an unparsable one
 * with `{}` (T55), and `history/compaction` events shorten the history as recorded (T57) — see
 * `historyItemsFromSession`, which also gives each message's seq. The messages are the session's
 * frozen objects, except those rewritten, which are frozen copies.
 * Throws `INVALID_SESSION` naming the event when a message event carries no message of its role.
 * @example
 * const messages = historyFromSession(session.events())
 */
export function historyFromSession(events: readonly SessionEvent[]): Message[] {
  return historyItemsFromSession(events).map((item) => item.message)
}
