import { textBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import type { UserMessageEventData } from '../base/types.ts'

/**
 * Records the contexts a step's tools deferred as the next step's `user/message`
 * (`source: 'tool-context'`, one text block each, FIFO). Recorded even when the turn ends here:
 * accepted context is never dropped, it opens the next step or turn. Await what it returns (an
 * asynchronous session's append).
 */
export function recordToolContexts(options: {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  readonly inbox: readonly string[]
}): SessionEvent | Promise<SessionEvent> | undefined {
  const { session, turn, step, inbox } = options
  if (inbox.length === 0) return undefined
  const data: UserMessageEventData = {
    turn,
    step: step + 1,
    message: { role: 'user', content: inbox.map((text) => textBlock(text)) },
    source: 'tool-context',
  }
  return session.append('user/message', data)
}
