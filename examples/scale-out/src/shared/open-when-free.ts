import { SessionError } from '@deepseek-ai/dsh-session'
import type { PostgresSession, PostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Opens a session, waiting while another process holds it: a `LOCKED` open is retried every
 * `retryMs` until the holder closes it or its lease runs out (a holder that died stops renewing).
 * `onRefused` hears the first refusal. Any other failure is thrown.
 */
export async function openWhenFree(options: {
  readonly store: PostgresSessionStore
  readonly id: string
  readonly onRefused?: (error: SessionError) => void
  readonly retryMs?: number
}): Promise<PostgresSession> {
  let told = false
  for (;;) {
    try {
      return await options.store.open(options.id)
    } catch (error) {
      if (!SessionError.isInstance(error) || error.code !== 'LOCKED') throw error
      if (!told) options.onRefused?.(error)
      told = true
      await sleep(options.retryMs ?? 50)
    }
  }
}
