import { SessionError } from '@deepseek-ai/dsh-session'
import { postgresError } from './postgres-error.ts'
import { isoText, type Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'

/**
 * Takes the lease of session `id` for `token` in one statement: creates the session if it does not
 * exist, takes it if nobody holds it or its holder's lease ran out (database time, so clocks of the
 * writers' machines do not matter), and otherwise changes nothing. A holder committing an append
 * holds the row locked, so a takeover waits for that commit and then sees the renewed lease.
 * Rejects with `LOCKED` naming the holder and when its lease runs out.
 */
export async function acquireLease(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly token: string
  readonly holder: string
  readonly leaseMs: number
  readonly where: string
}): Promise<void> {
  const { pool, tables, id, token, holder, leaseMs, where } = options
  let taken: boolean
  try {
    const result = await pool.query(
      `INSERT INTO ${tables.sessions} AS s (id, lease_token, lease_holder, lease_expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + $4::integer * interval '1 millisecond')
       ON CONFLICT (id) DO UPDATE
          SET lease_token = excluded.lease_token,
              lease_holder = excluded.lease_holder,
              lease_expires_at = excluded.lease_expires_at
        WHERE s.lease_token IS NULL OR s.lease_expires_at <= clock_timestamp()
       RETURNING s.id`,
      [id, token, holder, leaseMs],
    )
    taken = (result.rowCount ?? result.rows.length) === 1
  } catch (error) {
    throw postgresError(`${where}: cannot take the lease of session "${id}"`, error)
  }
  if (taken) return
  let row: Record<string, unknown> | undefined
  try {
    const result = await pool.query(
      `SELECT lease_holder, ${isoText('lease_expires_at')} AS expires_at,
              greatest(0, ceil(extract(epoch FROM lease_expires_at - clock_timestamp()) * 1000)) AS remaining_ms
         FROM ${tables.sessions} WHERE id = $1`,
      [id],
    )
    row = result.rows[0]
  } catch (error) {
    throw postgresError(`${where}: cannot read who holds session "${id}"`, error)
  }
  const holderName = typeof row?.lease_holder === 'string' ? row.lease_holder : 'another writer'
  const expires =
    row?.expires_at === null || row?.expires_at === undefined
      ? ''
      : ` (its lease runs out at ${String(row.expires_at)}, in ${Number(row.remaining_ms)} ms, unless renewed)`
  throw new SessionError({
    code: 'LOCKED',
    message: `${where}: session "${id}" is held by ${holderName}${expires}; another writer may take it over only once its holder stops renewing the lease`,
    details: { sessionId: id, holder: holderName },
  })
}
