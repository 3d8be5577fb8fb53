import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionError } from '@deepseek-ai/dsh-session'
import { createPostgresSessionStore, type PostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { refusal } from '../../../core/session/test/support/session-contract.ts'
import { useTestDatabase } from './support/postgres.ts'

// One writer per session across processes and machines, with writers in this process, each with its
// own pool (its own connections), as separate machines would have. A lease "runs out" here by
// moving its expiry into the past in the database (what time would do), so nothing waits on a clock.
const db = useTestDatabase('lease')

const pools: pg.Pool[] = []
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()))
})

/** A writer "on another machine": its own pool and holder name. */
function machine(holder: string, leaseMs = 30_000): PostgresSessionStore {
  const pool = new pg.Pool({ connectionString: db.url, max: 3 })
  pool.on('error', () => {})
  pools.push(pool)
  return createPostgresSessionStore({ pool, schema: db.schema, holder, leaseMs })
}

/** Makes the lease of `id` run out now, as if its holder had stopped renewing it. */
async function runOut(id: string): Promise<void> {
  await db
    .pool()
    .query(
      `UPDATE "${db.schema}".dsh_sessions SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [id],
    )
}

async function leaseRow(id: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db
    .pool()
    .query(
      `SELECT lease_holder, lease_expires_at, extract(epoch FROM lease_expires_at) AS expires FROM "${db.schema}".dsh_sessions WHERE id = $1`,
      [id],
    )
  return rows[0]
}

describe('one writer per session (lease)', () => {
  it('T42: a second open is LOCKED and names the holder; once the holder closes, the next open succeeds at once', async () => {
    const a = machine('machine-a')
    const b = machine('machine-b')
    const id = db.id()
    const held = await a.open(id)
    await held.append('note', { by: 'a' })
    const error = await refusal(() => b.open(id))
    expect(error.code).toBe('LOCKED')
    expect(error.details).toMatchObject({ sessionId: id, holder: 'machine-a' })
    expect(error.message).toMatch(
      new RegExp(
        `^store\\.open\\("${id}"\\): session "${id}" is held by machine-a \\(its lease runs out at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, in \\d+ ms, unless renewed\\); another writer may take it over only once its holder stops renewing the lease$`,
      ),
    )
    // The refused open changed nothing: a still writes.
    expect((await held.append('note', { by: 'a' })).seq).toBe(2)
    await held.close()
    expect((await leaseRow(id))?.lease_holder).toBeNull()
    const next = await b.open(id)
    expect(next.lastSeq).toBe(2)
    expect((await next.append('note', { by: 'b' })).seq).toBe(3)
    await next.close()
  })

  it('T42: after the lease ran out another writer takes over; the old writer’s next append is LOCKED, names the new holder and writes nothing', async () => {
    const a = machine('machine-a')
    const b = machine('machine-b')
    const c = machine('machine-c')
    const id = db.id()
    const old = await a.open(id)
    await old.append('note', { by: 'a' })
    await runOut(id)
    // The taker only opens: the old writer's append would still find last_seq where it expects it,
    // so it is the lease token alone that stops it.
    const taker = await b.open(id)
    const error = await refusal(() => old.append('note', { by: 'a, too late' }))
    expect(error.code).toBe('LOCKED')
    expect(error.details).toMatchObject({ sessionId: id, holder: 'machine-b' })
    expect(error.message).toBe(
      `append("note", data): session "${id}" was taken over by machine-b after this writer's lease ran out; nothing was written`,
    )
    // And every later append is refused without a round trip.
    expect((await refusal(() => old.append('note', 1))).message).toMatch(
      /^append\("note", data\): the session refuses appends since a write failed \(session ".*" was taken over by machine-b/,
    )
    expect((await b.load(id))!.map((e) => e.data)).toEqual([{ by: 'a' }])
    expect((await taker.append('note', { by: 'b' })).seq).toBe(2)
    // The old writer's close leaves the new holder's lease alone.
    await old.close()
    expect((await refusal(() => c.open(id))).details.holder).toBe('machine-b')
    await taker.close()
  })

  it('T42: writers racing to open one session: exactly one holds it, whoever they are', async () => {
    const racers = Array.from({ length: 6 }, (_, i) => machine(`racer-${i}`))
    for (let round = 0; round < 5; round++) {
      const id = db.id('race')
      const outcomes = await Promise.allSettled(racers.map((store) => store.open(id)))
      const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []))
      expect(won).toHaveLength(1)
      expect(lost.every((e) => SessionError.isInstance(e) && e.code === 'LOCKED')).toBe(true)
      // A takeover race after the winner's lease ran out: again exactly one.
      await runOut(id)
      const again = await Promise.allSettled(racers.map((store) => store.open(id)))
      const winners = again.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
      expect(winners).toHaveLength(1)
      expect((await refusal(() => won[0]!.append('late', 1))).code).toBe('LOCKED')
      await won[0]!.close()
      await winners[0]!.close()
    }
  })

  it('T42: an idle writer renews its lease in the background', async () => {
    // 1.5 s, renewed every 500 ms: a 300 ms lease left a loaded machine's stalled timers no room
    // (a renewal test failed once at load 14–19 with four test processes on two cores).
    const a = machine('machine-a', 1_500)
    const id = db.id()
    const held = await a.open(id)
    const first = Number((await leaseRow(id))!.expires)
    // Wait for a renewal to show up in the database (the heartbeat beats every leaseMs / 3).
    let later = first
    while (later <= first) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      later = Number((await leaseRow(id))!.expires)
    }
    expect(later).toBeGreaterThan(first)
    expect((await held.append('note', 1)).seq).toBe(1)
    await held.close()
  })

  it('T42: an idle live writer never lets its lease run low: it renews every third of it, long before a rival could take over', async () => {
    const leaseMs = 1_500
    const a = machine('machine-a', leaseMs)
    const id = db.id()
    const held = await a.open(id)
    // What is left of the lease, in the database's own time, sampled over two whole leases.
    let lowest = Number.POSITIVE_INFINITY
    const until = performance.now() + 2 * leaseMs
    while (performance.now() < until) {
      const { rows } = await db
        .pool()
        .query(
          `SELECT extract(epoch FROM lease_expires_at - clock_timestamp()) * 1000 AS left_ms FROM "${db.schema}".dsh_sessions WHERE id = $1`,
          [id],
        )
      lowest = Math.min(lowest, Number(rows[0]!.left_ms))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    // Renewed every 500 ms, the lease never has much less than 1 000 ms left; a writer renewing only
    // as it expires would let it reach zero. The margin absorbs a loaded machine's timer delays.
    expect(lowest).toBeGreaterThan(leaseMs / 4)
    expect((await refusal(() => machine('machine-b').open(id))).code).toBe('LOCKED')
    await held.close()
  })

  it('T42: a renewal that finds the lease taken marks it lost: the next append is LOCKED without sending a write', async () => {
    // Machine a's pool records the statements it sends, and when each one has finished.
    const pool = new pg.Pool({ connectionString: db.url, max: 3 })
    pool.on('error', () => {})
    pools.push(pool)
    const sent: { sql: string; done: boolean }[] = []
    const recording = {
      connect: () => pool.connect(),
      query: async (sql: string, values?: readonly unknown[]) => {
        const entry = { sql, done: false }
        sent.push(entry)
        try {
          return await pool.query(sql, values as unknown[])
        } finally {
          entry.done = true
        }
      },
    }
    const a = createPostgresSessionStore({
      pool: recording,
      schema: db.schema,
      holder: 'machine-a',
      leaseMs: 300,
    })
    const id = db.id()
    const held = await a.open(id)
    await held.append('note', 1)
    await runOut(id)
    const taker = await machine('machine-b').open(id)
    const renewals = () => sent.filter((entry) => entry.sql.includes('SET lease_expires_at')).length
    const since = renewals()
    // Wait for a's next renewal to find the lease gone, then for it to ask why, or (were the loss not
    // recorded) for the renewal after it.
    const isRenewal = (entry: { sql: string }) => entry.sql.includes('SET lease_expires_at')
    const asked = () => sent.some((entry) => entry.sql.includes('IS NOT DISTINCT FROM') && entry.done)
    while (!(asked() || renewals() >= since + 2) || !sent.filter(isRenewal).every((entry) => entry.done))
      await new Promise((resolve) => setTimeout(resolve, 20))
    const writesBefore = sent.filter((entry) => entry.sql.includes('INSERT INTO')).length
    const error = await refusal(() => held.append('note', 2))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toContain('was taken over by machine-b')
    expect(sent.filter((entry) => entry.sql.includes('INSERT INTO')).length).toBe(writesBefore)
    expect((await taker.append('note', 'b')).seq).toBe(2)
    await held.close()
    await taker.close()
  })

  it('T42: deleting needs the session free: LOCKED while held, deleted once released; a writer whose session was deleted gets LOCKED', async () => {
    const a = machine('machine-a')
    const id = db.id()
    const held = await a.open(id)
    await held.append('note', 1)
    const error = await refusal(() => a.delete(id))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toMatch(
      new RegExp(`^store\\.delete\\("${id}"\\): session "${id}" is held by machine-a`),
    )
    await held.close()
    expect(await a.delete(id)).toBe(true)
    expect(await a.load(id)).toBeUndefined()
    expect(await a.delete(id)).toBe(false)

    // A writer whose lease ran out and whose session was then deleted.
    const other = db.id()
    const stale = await a.open(other)
    await runOut(other)
    expect(await a.delete(other)).toBe(true)
    const gone = await refusal(() => stale.append('note', 1))
    expect(gone.code).toBe('LOCKED')
    expect(gone.message).toBe(`append("note", data): session "${other}" was deleted; nothing was written`)
    await stale.close()
  })
})
