import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createMemorySession, type SessionEvent } from '@deepseek-ai/dsh-session'
import { useTestDatabase } from './support/postgres.ts'

// jsonb normalizes what it stores (keys sorted, numbers as decimals) and refuses some valid JSON
// (\u0000, lone surrogates). The store keeps the event text exactly as JSON.stringify wrote it and
// reads that back; the jsonb column is a copy for queries. So an event read back is byte for byte
// the event a memory session returns for the same append.
const db = useTestDatabase('lossless')

/** Everything jsonb would change or refuse, plus what JSON.stringify itself normalizes (-0 → 0). */
function hardData(): Record<string, unknown> {
  const data: Record<string, unknown> = {
    zebra: 1,
    apple: 2,
    numbers: [
      1e21,
      5e-324,
      2 ** 53 + 2,
      0.1 + 0.2,
      Number.MAX_VALUE,
      -Number.MIN_VALUE,
      123456789012345680000,
      1.5,
      -0,
    ],
    strings: [
      'nul \u0000 inside',
      'lone \ud800 high',
      'lone \udfff low',
      'pair \ud83d\ude00',
      'quote " back \\ slash',
      '\\u0000 as text',
    ],
    nested: { b: [{ y: 1, x: 2 }], a: null, [String.fromCharCode(0xd834)]: 'lone-surrogate key' },
  }
  // An own "__proto__" key is data, not a prototype.
  Object.defineProperty(data, '__proto__', {
    value: { own: true },
    enumerable: true,
    configurable: true,
    writable: true,
  })
  return data
}

async function roundTrip(
  type: string,
  data: unknown,
): Promise<{ written: SessionEvent; read: SessionEvent; reopened: SessionEvent }> {
  const store = db.store()
  const id = db.id()
  const clock = () => new Date(Date.UTC(2024, 0, 1))
  const session = await store.open(id, { clock })
  const written = await session.append(type, data)
  await session.close()
  const read = (await store.load(id))![0]!
  const again = await store.open(id, { clock })
  const reopened = again.events()[0]!
  await again.close()
  return { written, read, reopened }
}

describe('lossless JSON through PostgreSQL', () => {
  it('T28: numbers, key order, -0, NUL, lone surrogates and __proto__ keys read back byte for byte as a memory session keeps them', async () => {
    const data = hardData()
    const memory = createMemorySession({ clock: () => new Date(Date.UTC(2024, 0, 1)) }).append('t', data)
    const { written, read, reopened } = await roundTrip('t', data)
    expect(JSON.stringify(written)).toBe(JSON.stringify(memory))
    expect(JSON.stringify(read)).toBe(JSON.stringify(memory))
    expect(JSON.stringify(reopened)).toBe(JSON.stringify(memory))
    expect(Object.keys(read.data as object)).toEqual(Object.keys(memory.data as object))
    expect(Object.hasOwn(read.data as object, '__proto__')).toBe(true)
    expect((read.data as { numbers: number[] }).numbers).toEqual(
      (memory.data as { numbers: number[] }).numbers,
    )
    expect(Object.is((read.data as { numbers: number[] }).numbers[8], 0)).toBe(true)
  })

  it('the jsonb copy holds what jsonb can (normalized) and is NULL where jsonb cannot hold the event; the type copy has no NUL', async () => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id)
    await session.append('plain', { zebra: 1, apple: 2, big: 1e21, tiny: 5e-324 })
    await session.append('nul', { text: 'a\u0000b' })
    await session.append('surrogate', { text: 'x\ud800' })
    await session.append('literal', { text: '\\u0000 is just text' })
    await session.append('type\u0000with nul', { ok: true })
    await session.close()
    const { rows } = await db.pool().query(
      `SELECT seq, type, data::text AS data, (data->>'big')::float8 AS big, (data->>'tiny')::float8 AS tiny
           FROM "${db.schema}".dsh_session_events WHERE session_id = $1 ORDER BY seq`,
      [id],
    )
    expect(rows.map((row) => row.data)).toEqual([
      '{"big": 1000000000000000000000, "tiny": 0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000005, "apple": 2, "zebra": 1}',
      null,
      null,
      '{"text": "\\\\u0000 is just text"}',
      '{"ok": true}',
    ])
    // Every double JSON.stringify writes is held exactly by jsonb's numeric.
    expect([rows[0]!.big, rows[0]!.tiny]).toEqual([1e21, 5e-324])
    expect(rows[4]!.type).toBe('type\ufffdwith nul')
    const events = (await store.load(id))!
    expect(events.map((event) => event.type)).toEqual([
      'plain',
      'nul',
      'surrogate',
      'literal',
      'type\u0000with nul',
    ])
    expect(events[1]!.data).toEqual({ text: 'a\u0000b' })
    expect(events[2]!.data).toEqual({ text: 'x\ud800' })
  })

  it('T28: any JSON value with any strings and doubles reads back exactly as JSON.stringify wrote it', async () => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id)
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string({ unit: 'binary' }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value
    const written: string[] = []
    await fc.assert(
      fc.asyncProperty(
        value,
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
        async (data, type) => {
          const event = await session.append(type, data)
          written.push(JSON.stringify(event))
        },
      ),
      { numRuns: 150 },
    )
    await session.close()
    const loaded = (await store.load(id))!
    expect(loaded.map((event) => JSON.stringify(event))).toEqual(written)
  })
})
