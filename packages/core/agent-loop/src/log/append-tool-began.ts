import { appendCiting, type AnySession, type ToolBeganEventData } from '@deepseek-ai/dsh-session'
import { andThen, type MaybePromise } from '../base/maybe-async.ts'
import { commitSession } from './commit-session.ts'

/**
 * Records that a call's body is about to start (T50): `tool/began`, citing the call's `tool/call`.
 * Awaited before the body runs, so a crash after it leaves a call known to have begun, and a crash
 * before it one known not to have. A commit point (T59): with a session that groups its writes,
 * the call's `tool/call`, this `tool/began` and everything before them are durable before the body
 * runs. Throws or rejects with whatever the session does; the body then does not run.
 */
export function appendToolBegan(options: {
  readonly session: AnySession
  readonly callSeq: number
  readonly data: ToolBeganEventData
}): MaybePromise<void> {
  const { session, callSeq, data } = options
  return andThen(appendCiting(session, 'tool/began', data, callSeq), () => commitSession(session))
}
