import { textBlock } from '@deepseek-ai/dsh-llm'
import type { Session } from '@deepseek-ai/dsh-session'
import type { UserMessageEventData } from './types.ts'

/**
 * Records the contexts a step's tools deferred as the next step's `user/message`
 * (`source: 'tool-context'`, one text block each, FIFO). Recorded even when the turn ends here:
 * accepted context is never dropped, it opens the next step or turn.
 */
export function recordToolContexts(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly inbox: readonly string[]
}): void {
  const { session, turn, step, inbox } = options
  if (inbox.length === 0) return
  const data: UserMessageEventData = {
    turn,
    step: step + 1,
    message: { role: 'user', content: inbox.map((text) => textBlock(text)) },
    source: 'tool-context',
  }
  session.append('user/message', data)
}
