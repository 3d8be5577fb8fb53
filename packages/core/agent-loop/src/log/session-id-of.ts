import { randomUUID } from 'node:crypto'
import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'

const known = new WeakMap<object, string>()

/** The `sessionId` the first `turn/start` that has one recorded, or undefined. */
export function recordedSessionId(events: readonly SessionEvent[]): string | undefined {
  for (const event of events) {
    if (event.type !== 'turn/start') continue
    const data = event.data as { sessionId?: unknown } | null
    if (typeof data?.sessionId === 'string' && data.sessionId !== '') return data.sessionId
  }
  return undefined
}

/** A fresh session id for the first `turn/start` of a session that has none yet. */
export function newSessionId(): string {
  return randomUUID()
}

/**
 * The session's id (T49), the scope of its calls' idempotency keys: the `sessionId` its first
 * `turn/start` recorded, so every process that opens the log derives the same keys. A log without
 * one (written before the loop recorded it, or a harness's own log driven by `executeToolCalls`)
 * falls back to `log-<time of its first event>`, equally stable, and an empty one to a random id
 * (a harness that drives an empty session with `executeToolCalls` gets keys another process would
 * not derive: record a `turn/start` with a `sessionId` first if that matters). Read once per
 * session object and kept, so a step pays one WeakMap read.
 */
export function sessionIdOf(session: AnySession): string {
  const cached = known.get(session)
  if (cached !== undefined) return cached
  const events = session.events()
  const id = recordedSessionId(events) ?? (events[0] === undefined ? newSessionId() : `log-${events[0].time}`)
  known.set(session, id)
  return id
}
