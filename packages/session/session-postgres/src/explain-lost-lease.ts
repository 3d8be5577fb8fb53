import { SessionError } from '@deepseek-ai/dsh-session'
import { postgresError } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'
import type { LeaseState } from './write-events.ts'

/**
 * This writer's conditional write or renewal matched nothing: finds out why (the session was
 * deleted, taken over by a named holder, or written behind its back), records the lease as lost
 * so every later append fails at once, and returns the `LOCKED` error that says so. A failure to
 * find out is an `IO` error instead (the lease is then not marked lost: the next write asks again).
 */
export async function explainLostLease(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly token: string
  readonly lease: LeaseState
  /** The last seq a write expected (absent for a renewal). */
  readonly expectedLastSeq?: number
}): Promise<SessionError> {
  const { pool, tables, id, token, lease, expectedLastSeq } = options
  const where = `session "${id}"`
  let row: Record<string, unknown> | undefined
  try {
    const result = await pool.query(
      `SELECT lease_token IS NOT DISTINCT FROM $2::uuid AS ours, lease_holder, last_seq FROM ${tables.sessions} WHERE id = $1`,
      [id, token],
    )
    row = result.rows[0]
  } catch (error) {
    return postgresError(
      `${where}: this writer no longer holds the session, and reading who does failed`,
      error,
    )
  }
  let message: string
  let holder: string | undefined
  if (row === undefined) message = `${where} was deleted; nothing was written`
  else if (row.ours !== true) {
    holder = typeof row.lease_holder === 'string' ? row.lease_holder : undefined
    message =
      holder === undefined
        ? `${where} is no longer held by this writer (its lease ran out and another writer took it over and released it); nothing was written`
        : `${where} was taken over by ${holder} after this writer's lease ran out; nothing was written`
  } else if (expectedLastSeq !== undefined) {
    message = `${where} has last seq ${String(row.last_seq)} in the database where this writer expected ${expectedLastSeq}; nothing was written`
  } else {
    // A renewal that matched nothing while the row says ours cannot happen; treat it as lost anyway.
    message = `${where}: the lease could not be renewed; nothing more is written`
  }
  lease.lost = new SessionError({
    code: 'LOCKED',
    message,
    details: { sessionId: id, ...(holder === undefined ? {} : { holder }) },
  })
  return lease.lost
}
