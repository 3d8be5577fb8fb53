import { SessionError } from '@deepseek-ai/dsh-session'
import { postgresError } from './postgres-error.ts'
import { isoText, type Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'

/**
 * Deletes session `id` and (by cascade) its events in one statement, unless a writer holds a live
 * lease on it: then `LOCKED`. A writer whose lease ran out and whose session was deleted finds out
 * at its next append (`LOCKED`, nothing written). `false` when there was no such session.
 */
export async function deleteSession(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly where: string
}): Promise<boolean> {
  const { pool, tables, id, where } = options
  try {
    // A holder may close (or its lease run out) between the two statements: then try again.
    for (let attempt = 0; ; attempt++) {
      const deleted = await pool.query(
        `DELETE FROM ${tables.sessions}
          WHERE id = $1 AND (lease_token IS NULL OR lease_expires_at <= clock_timestamp())`,
        [id],
      )
      if ((deleted.rowCount ?? 0) === 1) return true
      const held = await pool.query(
        `SELECT lease_holder, ${isoText('lease_expires_at')} AS expires_at,
                lease_expires_at > clock_timestamp() AS live
           FROM ${tables.sessions} WHERE id = $1`,
        [id],
      )
      const row = held.rows[0]
      if (row === undefined) return false
      if (row.live !== true && attempt < 3) continue
      const holder = String(row.lease_holder)
      throw new SessionError({
        code: 'LOCKED',
        message: `${where}: session "${id}" is held by ${holder} (its lease runs out at ${String(row.expires_at)} unless renewed); it can be deleted once it is closed or its lease has run out`,
        details: { sessionId: id, holder },
      })
    }
  } catch (error) {
    throw postgresError(`${where}: cannot delete session "${id}"`, error)
  }
}
