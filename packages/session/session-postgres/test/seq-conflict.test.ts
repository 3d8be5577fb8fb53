import { describe, expect, it } from 'vitest'
import { refusal } from '../../../core/session/test/support/session-contract.ts'
import { useTestDatabase } from './support/postgres.ts'

const db = useTestDatabase('seqconflict')

describe('an append whose seq is already stored', () => {
  it('T28/T42: a seq written behind the store (last_seq not moved) is LOCKED: nothing is written, and the writer stops at once', async () => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id)
    await session.append('note', 1)
    // a row at seq 2 that another writer left while the session's last_seq still says 1
    await db
      .pool()
      .query(
        `INSERT INTO "${db.schema}".dsh_session_events (session_id, seq, type, event) VALUES ($1, 2, 'note', '{"seq":2,"type":"note","data":"theirs"}')`,
        [id],
      )
    const refused = await refusal(() => session.append('note', 2))
    expect(refused.code).toBe('LOCKED')
    expect(refused.message).toContain(
      'seq 2 is already stored; another writer appended to it, nothing was written',
    )
    expect(refused.details).toEqual({ sessionId: id })
    // the writer knows it lost the session: the next append is refused before any statement
    expect((await refusal(() => session.append('note', 3))).code).toBe('LOCKED')
    const { rows } = await db
      .pool()
      .query(`SELECT last_seq FROM "${db.schema}".dsh_sessions WHERE id = $1`, [id])
    expect(rows).toEqual([{ last_seq: 1 }])
  })
})
