import { SessionError, type SessionEvent } from '@deepseek-ai/dsh-session'
import { eventText } from './event-text.ts'
import { textCopy } from './mirror-safe.ts'
import { explainLostLease } from './explain-lost-lease.ts'
import { postgresError, sqlState } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'

export interface LeaseState {
  /** Set once this writer knows it no longer holds the session. */
  lost: SessionError | undefined
  /** `performance.now()` of the last renewal that succeeded (a write renews too). */
  renewedAt: number
}

/**
 * The `write` of a PostgreSQL session: consecutive events in one statement, hence one transaction,
 * committed when the statement returns. The insert happens only if this writer still holds the
 * lease (its token) and the session's `last_seq` is the seq before the first event; the same
 * statement moves `last_seq` to the last event and renews the lease. Otherwise nothing is written
 * and the write rejects with `LOCKED`, saying who has the session now. The primary key
 * `(session_id, seq)` refuses any seq written twice.
 */
export function createEventWriter(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly token: string
  readonly leaseMs: number
  readonly lease: LeaseState
}): (events: readonly SessionEvent[]) => Promise<void> {
  const { pool, tables, id, token, leaseMs, lease } = options
  const where = `session "${id}"`
  const sql = `WITH held AS (
      UPDATE ${tables.sessions}
         SET last_seq = $3, lease_expires_at = clock_timestamp() + $4::integer * interval '1 millisecond'
       WHERE id = $1 AND lease_token = $2 AND last_seq = $5
      RETURNING id
    )
    INSERT INTO ${tables.events} (session_id, seq, type, event, data)
    SELECT held.id, e.seq, e.type, e.event,
           CASE WHEN e.data_at > 0 THEN left(substr(e.event, e.data_at), -1)::jsonb END
      FROM held, unnest($6::integer[], $7::text[], $8::text[], $9::integer[]) AS e(seq, type, event, data_at)`

  return async (events) => {
    if (lease.lost !== undefined) throw lease.lost
    const seqs: number[] = []
    const types: string[] = []
    const texts: string[] = []
    const dataAt: number[] = []
    for (const event of events) {
      const stored = eventText(event)
      seqs.push(event.seq)
      types.push(textCopy(event.type))
      texts.push(stored.text)
      dataAt.push(stored.dataAt)
    }
    const first = seqs[0]!
    const last = seqs[seqs.length - 1]!
    let inserted: number
    try {
      const result = await pool.query(sql, [id, token, last, leaseMs, first - 1, seqs, types, texts, dataAt])
      inserted = result.rowCount ?? 0
    } catch (error) {
      if (sqlState(error) === '23505') {
        throw (lease.lost = new SessionError({
          code: 'LOCKED',
          message: `${where}: seq ${first} is already stored; another writer appended to it, nothing was written`,
          details: { sessionId: id },
        }))
      }
      throw postgresError(`${where}: the append may or may not have been committed`, error)
    }
    if (inserted === events.length) {
      lease.renewedAt = performance.now()
      return
    }
    if (inserted !== 0)
      throw postgresError(`${where}`, new Error(`inserted ${inserted} of ${events.length} events`))
    throw await explainLostLease({ pool, tables, id, token, lease, expectedLastSeq: first - 1 })
  }
}
