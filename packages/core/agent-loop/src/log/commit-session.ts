import type { AnySession, Session } from '@deepseek-ai/dsh-session'

/**
 * A commit point (T59): makes what the session holds durable, for a session that groups its writes
 * (a JSONL session with `durability: 'step'`); nothing for the others. An asynchronous session has
 * no commit: each of its appends is durable when it resolves, and the loop awaits it. Sessions
 * written before `commit` existed have none either. Throws whatever the session's `commit` throws.
 */
export function commitSession(session: AnySession): void {
  const commit = (session as Partial<Pick<Session, 'commit'>>).commit
  if (typeof commit === 'function') commit.call(session)
}
