import type { SessionLogger } from '@deepseek-ai/dsh-session'
import { explainLostLease } from './explain-lost-lease.ts'
import { postgresError } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'
import type { LeaseState } from './write-events.ts'

/**
 * Renews the lease every third of `leaseMs` while the session is open (skipped when an append
 * renewed it since). A renewal that finds the lease gone (taken over after it ran out, or the
 * session deleted) marks it lost, so the next append fails at once with `LOCKED`; one that fails
 * (network, database) is logged and tried again at the next beat. The timer never keeps the
 * process alive.
 */
export function startLeaseHeartbeat(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly token: string
  readonly leaseMs: number
  readonly lease: LeaseState
  readonly logger: SessionLogger | undefined
}): { stop(): void } {
  const { pool, tables, id, token, leaseMs, lease, logger } = options
  const every = Math.max(1, Math.floor(leaseMs / 3))
  let renewing = false
  const beat = async (): Promise<void> => {
    if (renewing || lease.lost !== undefined || performance.now() - lease.renewedAt < every) return
    renewing = true
    try {
      const result = await pool.query(
        `UPDATE ${tables.sessions}
            SET lease_expires_at = clock_timestamp() + $3::integer * interval '1 millisecond'
          WHERE id = $1 AND lease_token = $2`,
        [id, token, leaseMs],
      )
      if ((result.rowCount ?? 0) === 1) lease.renewedAt = performance.now()
      else await explainLostLease({ pool, tables, id, token, lease })
    } catch (error) {
      warn(logger, `session "${id}": renewing the lease failed; retrying in ${every} ms`, {
        sessionId: id,
        error: postgresError('renew', error).message,
      })
    } finally {
      renewing = false
    }
  }
  const timer = setInterval(() => void beat(), every)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}

export function warn(
  logger: SessionLogger | undefined,
  message: string,
  fields: Readonly<Record<string, unknown>>,
): void {
  try {
    logger?.warn(message, fields)
  } catch {
    // A logger must not throw; the store goes on either way.
  }
}
