import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { verifyToolPairs, type SessionLogger } from '@deepseek-ai/dsh-session'
import {
  createPostgresSessionStore,
  type PostgresSessionStoreOptions,
} from '@deepseek-ai/dsh-session-postgres'
import { refusal } from '../../../core/session/test/support/session-contract.ts'
import { instrumentedPool } from './support/instrumented-pool.ts'
import { useTestDatabase } from './support/postgres.ts'

const db = useTestDatabase('store')

/** A schema nobody has migrated yet, dropped at the end of the test. */
async function withFreshSchema(body: (schema: string) => Promise<void>): Promise<void> {
  const schema = `t_fresh_${randomBytes(4).toString('hex')}`
  try {
    await body(schema)
  } finally {
    await db.pool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  }
}

describe('migrations', () => {
  it('migrate() is explicit, idempotent, and safe from several processes at once', async () => {
    await withFreshSchema(async (schema) => {
      const store = createPostgresSessionStore({ pool: db.pool(), schema })
      const before = await refusal(() => store.open('s'))
      expect(before.code).toBe('UNSUPPORTED_FORMAT')
      expect(before.message).toBe(
        `store.open("s"): schema "${schema}" is at version 0 and this build needs 1; run store.migrate() first`,
      )
      // Several at once: one applies version 1, the others wait for it and find nothing to do.
      const results = await Promise.all(
        [1, 2, 3].map(() => createPostgresSessionStore({ pool: db.pool(), schema }).migrate()),
      )
      expect(results.map((r) => r.version)).toEqual([1, 1, 1])
      expect(results.flatMap((r) => r.applied)).toEqual([1])
      expect(await store.migrate()).toEqual({ version: 1, applied: [] })
      // The store that failed before sees the migration now.
      const session = await store.open('s')
      await session.close()
    })
  })

  it('a schema migrated by a newer build is refused, by migrate() and by the store', async () => {
    await withFreshSchema(async (schema) => {
      const store = createPostgresSessionStore({ pool: db.pool(), schema })
      await store.migrate()
      await db
        .pool()
        .query(`INSERT INTO "${schema}".dsh_session_migrations (version, name) VALUES (2, 'future')`)
      const fresh = createPostgresSessionStore({ pool: db.pool(), schema })
      for (const error of [await refusal(() => fresh.migrate()), await refusal(() => fresh.load('x'))]) {
        expect(error.code).toBe('UNSUPPORTED_FORMAT')
        expect(error.message).toMatch(
          /is at version 2, newer than this build of @deepseek-ai\/dsh-session-postgres \(1\); upgrade it$/,
        )
        expect(error.details).toMatchObject({ foundVersion: 2, supportedVersion: 1 })
      }
    })
  })
})

describe('appends', () => {
  it('T28: appends made together are written together (group commit), each acknowledged once committed', async () => {
    const pool = instrumentedPool(db.pool())
    const store = createPostgresSessionStore({ pool, schema: db.schema })
    const session = await store.open(db.id())
    pool.statements.length = 0
    const events = await Promise.all(Array.from({ length: 50 }, (_, n) => session.append('note', { n })))
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    const writes = pool.statements.filter((s) => s.startsWith('WITH held AS')).length
    expect(writes).toBeGreaterThanOrEqual(1)
    expect(writes).toBeLessThan(50)
    expect((await store.load(session.id))!.length).toBe(50)
    await session.close()
  })

  it('T31: a connection lost during an append: IO ("may or may not have been committed"), no further appends; reopening shows what was committed', async () => {
    const pool = instrumentedPool(db.pool())
    const store = createPostgresSessionStore({ pool, schema: db.schema })
    const id = db.id()
    const session = await store.open(id)
    await session.append('note', 1)
    // The statement commits, then the acknowledgment is lost.
    pool.fail = (statement) =>
      statement.includes('WITH held AS')
        ? { error: new Error('Connection terminated unexpectedly'), after: true }
        : undefined
    const error = await refusal(() => session.append('note', 2))
    expect(error.code).toBe('IO')
    expect(error.message).toBe(
      `append("note", data): session "${id}": the append may or may not have been committed: PostgreSQL: Connection terminated unexpectedly`,
    )
    pool.fail = undefined
    expect((await refusal(() => session.append('note', 3))).code).toBe('IO')
    expect(session.lastSeq).toBe(1)
    await session.close()
    const again = await store.open(id)
    expect(again.events().map((e) => e.data)).toEqual([1, 2])
    expect((await again.append('note', 3)).seq).toBe(3)
    await again.close()
  })

  it('seqs are dense by the database’s rules too: a row written behind the writer’s back stops it, and the primary key refuses a seq twice', async () => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id)
    await session.append('note', 1)
    const events = `"${db.schema}".dsh_session_events`
    await expect(
      db.pool().query(`INSERT INTO ${events} (session_id, seq, type, event) VALUES ($1, 1, 'x', '{}')`, [id]),
    ).rejects.toMatchObject({ code: '23505' })
    await db.pool().query(`UPDATE "${db.schema}".dsh_sessions SET last_seq = 7 WHERE id = $1`, [id])
    const error = await refusal(() => session.append('note', 2))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toBe(
      `append("note", data): session "${id}" has last seq 7 in the database where this writer expected 1; nothing was written`,
    )
    await session.close()
  })

  it('close waits for appends in flight, releases the lease, and never rejects (a failed release is logged)', async () => {
    const pool = instrumentedPool(db.pool())
    const warnings: string[] = []
    const logger: SessionLogger = { warn: (message) => void warnings.push(message) }
    const store = createPostgresSessionStore({ pool, schema: db.schema, logger })
    const id = db.id()
    const session = await store.open(id)
    const pending = session.append('note', 1)
    pool.fail = (statement) =>
      statement.includes('SET lease_token = NULL')
        ? { error: new Error('server closed the connection') }
        : undefined
    await expect(session.close()).resolves.toBeUndefined()
    expect((await pending).seq).toBe(1)
    expect(warnings).toEqual([`session "${id}": releasing the lease failed; it runs out within 30000 ms`])
    expect((await refusal(() => session.append('note', 2))).code).toBe('CLOSED')
  })
})

describe('reading and managing sessions', () => {
  it('load returns the stored events (undefined for no session); a corrupt row is CORRUPT_EVENT naming its seq', async () => {
    const store = db.store()
    expect(await store.load('never-opened')).toBeUndefined()
    const id = db.id()
    const session = await store.open(id)
    await session.append('tool/call', { turn: 1, step: 1, callId: 'c', name: 'x', arguments: '{}' })
    await session.append('note', 2)
    await session.append('note', 3)
    await session.close()
    const loaded = (await store.load(id))!
    expect(Object.isFrozen(loaded)).toBe(true)
    expect(verifyToolPairs(loaded).problems.map((p) => p.kind)).toEqual(['unanswered-call'])

    const events = `"${db.schema}".dsh_session_events`
    await db.pool().query(`UPDATE ${events} SET event = '{"seq":2,' WHERE session_id = $1 AND seq = 2`, [id])
    const bad = await refusal(() => store.load(id))
    expect(bad.code).toBe('CORRUPT_EVENT')
    expect(bad.kind).toBe('system')
    expect(bad.details).toEqual({ sessionId: id, seq: 2 })
    expect(bad.message).toMatch(
      new RegExp(`^store\\.load\\("${id}"\\): the event at seq 2 of session "${id}" is not valid JSON`),
    )
    await db.pool().query(`DELETE FROM ${events} WHERE session_id = $1 AND seq = 2`, [id])
    const gap = await refusal(() => store.open(id))
    expect(gap.code).toBe('CORRUPT_EVENT')
    expect(gap.message).toBe(
      `store.open("${id}"): the event at seq 2 of session "${id}" is missing (the next stored seq is 3); nothing was changed`,
    )
    // The failed open released the lease it had taken.
    const { rows } = await db
      .pool()
      .query(`SELECT lease_token FROM "${db.schema}".dsh_sessions WHERE id = $1`, [id])
    expect(rows).toEqual([{ lease_token: null }])
  })

  it('T28/T31: a log whose last events were deleted behind the store is CORRUPT_EVENT, never read shorter', async () => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id)
    for (const n of [1, 2, 3]) await session.append('note', n)
    await session.close()
    const events = `"${db.schema}".dsh_session_events`
    await db.pool().query(`DELETE FROM ${events} WHERE session_id = $1 AND seq = 3`, [id])
    const short = await refusal(() => store.load(id))
    expect(short.code).toBe('CORRUPT_EVENT')
    expect(short.details).toEqual({ sessionId: id, seq: 3 })
    expect(short.message).toBe(
      `store.load("${id}"): the event at seq 3 of session "${id}" is missing: the session's last seq is 3 but 2 events are stored; nothing was changed`,
    )
    expect((await refusal(() => store.open(id))).code).toBe('CORRUPT_EVENT')
  })

  it('list pages through sessions in byte order of their ids, with their last seq and lease', async () => {
    await withFreshSchema(async (schema) => {
      const store = createPostgresSessionStore({ pool: db.pool(), schema, holder: 'lister' })
      await store.migrate()
      const ids = ['b', 'B', 'a', 'é', 'a-2']
      for (const id of ids) await (await store.open(id)).close()
      const held = await store.open('a')
      await held.append('note', 1)
      const first = await store.list({ limit: 2 })
      const rest = await store.list({ after: first.at(-1)!.id })
      expect([...first, ...rest].map((s) => s.id)).toEqual(['B', 'a', 'a-2', 'b', 'é'])
      const a = first.find((s) => s.id === 'a')!
      expect(a.lastSeq).toBe(1)
      expect(a.lease).toMatchObject({ holder: 'lister', live: true })
      expect(a.lease!.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(first.find((s) => s.id === 'B')!.lease).toBeUndefined()
      await held.close()
    })
  })

  it('bad options and ids are refused with errors naming what is wrong', async () => {
    const pool = db.pool()
    const bad: [unknown, RegExp][] = [
      [undefined, /options must be an object with a pool, got undefined/],
      [{ pool: {} }, /options\.pool must be a pg\.Pool \(query and connect\)/],
      [{ pool, schema: 'Public' }, /options\.schema must be a lower-case identifier/],
      [{ pool, schema: 'a"; drop' }, /options\.schema must be a lower-case identifier/],
      [{ pool, leaseMs: 50 }, /options\.leaseMs must be an integer from 100 to 86400000, got the number 50/],
      [{ pool, holder: '' }, /options\.holder must not be empty/],
      [{ pool, logger: console.log }, /options\.logger must have a warn\(message, fields\) method/],
      [{ pool, lease: 1 }, /unknown key "lease"/],
    ]
    for (const [options, message] of bad) {
      const error = await refusal(() => createPostgresSessionStore(options as PostgresSessionStoreOptions))
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toMatch(message)
    }
    const store = db.store()
    const ids: [unknown, string][] = [
      ['', 'the session id must not be empty'],
      ['x'.repeat(201), 'the session id must be at most 200 characters, got 201'],
      ['a\u0000b', 'the session id must not contain NUL'],
      ['a\ud800', 'the session id must be well-formed Unicode (it has a lone surrogate)'],
      [7, 'the session id must be a string, got the number 7'],
    ]
    for (const [id, message] of ids) {
      for (const call of [
        () => store.open(id as string),
        () => store.load(id as string),
        () => store.delete(id as string),
      ]) {
        const error = await refusal(call)
        expect(error.code).toBe('INVALID_ARGUMENT')
        expect(error.message.endsWith(message)).toBe(true)
      }
    }
    expect((await refusal(() => store.open('s', { clok: 1 } as never))).message).toMatch(/unknown key "clok"/)
    expect((await refusal(() => store.list({ limit: 0 }))).message).toMatch(
      /options\.limit must be an integer from 1 to 1000/,
    )
  })
})
