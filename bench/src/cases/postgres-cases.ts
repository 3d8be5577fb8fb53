import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import {
  createPostgresSessionStore,
  type PostgresSession,
  type PostgresSessionStore,
} from '@deepseek-ai/dsh-session-postgres'
import type { TimedCase } from '../harness/measure-case.ts'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Log } from '../types.ts'
import { resultData, resultOptions } from './store-payload.ts'

/** Where the PostgreSQL cases connect: main.js starts a throwaway server and sets it when unset. */
export const POSTGRES_URL_VARIABLE = 'DSH_TEST_POSTGRES_URL'

const callData = { turn: 3, step: 2, callId: 'call_42', name: 'add', arguments: '{}' }

interface Database {
  readonly pool: pg.Pool
  readonly store: PostgresSessionStore
  close(): Promise<void>
}

/** A pool and a private schema on the server named by DSH_TEST_POSTGRES_URL, dropped by `close`. */
async function openDatabase(): Promise<Database> {
  const url = process.env[POSTGRES_URL_VARIABLE]
  if (url === undefined || url === '') {
    throw new Error(
      `${POSTGRES_URL_VARIABLE} is not set: run the PostgreSQL cases through \`pnpm bench\` (it starts a server)`,
    )
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  pool.on('error', () => {})
  const schema = `bench_${randomBytes(4).toString('hex')}`
  const store = createPostgresSessionStore({ pool, schema })
  await store.migrate()
  return {
    pool,
    store,
    close: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await pool.end()
    },
  }
}

/**
 * One awaited `session.append` of a `tool/result` per op, as the agent loop records (each append a
 * committed transaction before the next starts), into a fresh session each round. Its wall time per
 * append gives appends per second beside the memory and JSONL stores.
 */
export function appendCase(): TimedCase<SessionEvent> {
  let database: Database | undefined
  let session: PostgresSession | undefined
  return {
    id: 'store.append.postgres',
    label: 'session.append of a tool/result, PostgreSQL (awaited; one commit per append)',
    callsPerOp: 1,
    beforeRound: async () => {
      database ??= await openDatabase()
      session = await database.store.open(`round-${randomBytes(4).toString('hex')}`)
      await session.append('tool/call', callData)
    },
    afterRound: async () => {
      await session?.close()
      session = undefined
    },
    // A timed case's dispose is synchronous: the schema is dropped without waiting.
    dispose: () => void database?.close(),
    op: () => session!.append('tool/result', resultData, resultOptions),
    verify: (event) => {
      if (event.type !== 'tool/result' || event.seq !== 2) {
        throw new Error(`store.append.postgres: unexpected event ${JSON.stringify(event)}`)
      }
    },
  }
}

/**
 * Appends per second into one session, measured side by side in alternating rounds: awaited one by
 * one (one transaction each), and in bursts of 100 appends made together (the session groups what
 * arrives while a write runs, so a burst takes a few transactions).
 */
export async function runBurstCase(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const database = await openDatabase()
  const perRound = Math.max(100, Math.round(options.roundMs * 2))
  const rounds = Math.max(1, options.rounds)
  const sequential: number[] = []
  const burst: number[] = []
  let writes = 0
  try {
    const session = await database.store.open(`burst-${randomBytes(4).toString('hex')}`)
    const measure = async (mode: 'sequential' | 'burst'): Promise<number> => {
      const start = performance.now()
      if (mode === 'sequential') {
        for (let i = 0; i < perRound; i++) await session.append('tool/result', resultData)
      } else {
        for (let done = 0; done < perRound; done += 100) {
          const appends: Promise<SessionEvent>[] = []
          for (let i = 0; i < 100; i++) appends.push(session.append('tool/result', resultData))
          await Promise.all(appends)
        }
      }
      return (perRound / (performance.now() - start)) * 1000
    }
    // Warm-up, then alternate which goes first.
    await measure('sequential')
    await measure('burst')
    for (let round = 0; round < rounds; round++) {
      const order: ('sequential' | 'burst')[] =
        round % 2 === 0 ? ['sequential', 'burst'] : ['burst', 'sequential']
      for (const mode of order) (mode === 'sequential' ? sequential : burst).push(await measure(mode))
    }
    const before = session.lastSeq
    const { rows } = await database.pool.query(
      `SELECT count(*)::integer AS events FROM "${database.store.schema}".dsh_session_events WHERE session_id = $1`,
      [session.id],
    )
    if (rows[0]?.events !== before)
      throw new Error(`store.postgres.burst: ${before} appends, ${rows[0]?.events} rows`)
    writes = before
    await session.close()
  } finally {
    await database.close()
  }
  log(`store.postgres.burst: ${writes} events in one session`)
  const ratio = burst.map((b, i) => b / sequential[i]!)
  return [
    {
      kind: 'figures',
      id: 'store.postgres.burst',
      label:
        'PostgreSQL appends per second: awaited one by one vs bursts of 100 (group commit), alternating rounds',
      figures: [
        { name: 'appends per second, awaited one by one', unit: '/s', stats: summarize(sequential) },
        { name: 'appends per second, bursts of 100', unit: '/s', stats: summarize(burst) },
        { name: 'bursts ÷ one by one', unit: '×', stats: summarize(ratio) },
      ],
    },
  ]
}
