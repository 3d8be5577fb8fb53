import { SessionError, parseSessionEvent, type SessionEvent } from '@deepseek-ai/dsh-session'
import { postgresError } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'

/**
 * Every event of session `id`, read in one statement (one snapshot, so a writer committing meanwhile
 * is seen entirely or not at all) and checked: seqs 1..last_seq without a gap, each event well
 * formed and numbered as its row. `undefined` when the session does not exist. A stored event that
 * does not read back is `CORRUPT_EVENT`, naming its seq; nothing is dropped silently.
 */
export async function loadEvents(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly where: string
}): Promise<SessionEvent[] | undefined> {
  const { pool, tables, id, where } = options
  let rows: readonly Record<string, unknown>[]
  try {
    const result = await pool.query(
      `SELECT s.last_seq, e.seq, e.event
         FROM ${tables.sessions} s LEFT JOIN ${tables.events} e ON e.session_id = s.id
        WHERE s.id = $1
        ORDER BY e.seq`,
      [id],
    )
    rows = result.rows
  } catch (error) {
    throw postgresError(`${where}: cannot read session "${id}"`, error)
  }
  if (rows.length === 0) return undefined
  const lastSeq = Number(rows[0]!.last_seq)
  const events: SessionEvent[] = []
  for (const row of rows) {
    if (row.seq === null || row.seq === undefined) continue
    const expected = events.length + 1
    const seq = Number(row.seq)
    if (seq !== expected) throw corrupt(where, id, expected, `is missing (the next stored seq is ${seq})`)
    const parsed = parseSessionEvent(String(row.event), expected)
    if (!parsed.ok) throw corrupt(where, id, expected, parsed.problem)
    events.push(parsed.event)
  }
  if (events.length !== lastSeq) {
    throw corrupt(
      where,
      id,
      events.length + 1,
      `is missing: the session's last seq is ${lastSeq} but ${events.length} events are stored`,
    )
  }
  return events
}

function corrupt(where: string, id: string, seq: number, what: string): SessionError {
  return new SessionError({
    code: 'CORRUPT_EVENT',
    message: `${where}: the event at seq ${seq} of session "${id}" ${what}; nothing was changed`,
    details: { sessionId: id, seq },
  })
}
