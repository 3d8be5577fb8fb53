import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { resolveAgentLoopConfig, type AgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createMemorySession, type AnySession, type SessionEvent } from '@deepseek-ai/dsh-session'
import {
  createPostgresSessionStore,
  type PostgresSession,
  type PostgresSessionStore,
} from '@deepseek-ai/dsh-session-postgres'
import type { TimedCase } from '../harness/measure-case.ts'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Log } from '../types.ts'
import { runStep } from '../adapters/run-step.ts'
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

/** Calls per step, how long each body waits, and the pool cap of `store.postgres.step`. */
const STEP_CALLS = 10
const STEP_BODY_MS = 20

/**
 * One `executeToolCalls` step of 10 parallel-safe calls whose bodies wait 20 ms, recorded into a
 * memory session and into a PostgreSQL session, alternating per round: the step's makespan, and
 * when its last call's body started (from the step's start). A body starts only once its
 * `tool/call` is committed (T25); the starts and the results are pipelined (T61), so the ten
 * `tool/call`s and the ten results each take a commit or two rather than ten in a row. This case
 * says what the store still costs a step.
 */
export async function runStepCase(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const database = await openDatabase()
  const root = createContext({ logger: silentLogger })
  installTools(root, { defaultTimeoutMs: false }) // as createDshRuntime: no timer per call
  let started: number[] = []
  root.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits a moment.',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async () => {
        started.push(performance.now())
        await new Promise((resolve) => setTimeout(resolve, STEP_BODY_MS))
        return 'ok'
      },
    }),
  )
  const agent = root.createScope({ name: 'agent' })
  const loop: { readonly config: AgentLoopConfig; session: AnySession } = {
    config: resolveAgentLoopConfig({ maxParallelToolCalls: STEP_CALLS }),
    session: createMemorySession(),
  }
  agent.provide('agentLoop', loop)
  const blocks = Array.from({ length: STEP_CALLS }, (_, i) =>
    toolCallBlock({ id: `w${i}`, name: 'wait', args: {} }),
  )
  const figures = {
    memory: { makespan: [] as number[], lastStart: [] as number[] },
    postgres: { makespan: [] as number[], lastStart: [] as number[] },
  }
  const measure = async (store: 'memory' | 'postgres'): Promise<void> => {
    const session =
      store === 'memory'
        ? createMemorySession()
        : await database.store.open(`step-${randomBytes(4).toString('hex')}`)
    loop.session = session
    started = []
    const t0 = performance.now()
    const { results } = await runStep({
      ctx: agent,
      turn: 1,
      step: 1,
      toolCalls: blocks,
      acceptContext: () => {},
    })
    const makespan = performance.now() - t0
    const recorded = session.read({ types: ['tool/call', 'tool/result'] }).length
    if (results.length !== STEP_CALLS || results.some((r) => r.isError) || recorded !== 2 * STEP_CALLS)
      throw new Error(
        `store.postgres.step (${store}): ${results.length} results, ${recorded} tool events recorded`,
      )
    figures[store].makespan.push(makespan)
    figures[store].lastStart.push(Math.max(...started) - t0)
    if (store === 'postgres') await (session as PostgresSession).close()
  }
  const rounds = Math.max(1, options.rounds)
  try {
    await measure('memory')
    await measure('postgres')
    figures.memory = { makespan: [], lastStart: [] }
    figures.postgres = { makespan: [], lastStart: [] }
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        await measure('memory')
        await measure('postgres')
      } else {
        await measure('postgres')
        await measure('memory')
      }
    }
  } finally {
    agent.dispose()
    await database.close()
  }
  log(`store.postgres.step: ${rounds} rounds of each`)
  const ratio = figures.postgres.makespan.map((p, i) => p / figures.memory.makespan[i]!)
  return [
    {
      kind: 'figures',
      id: 'store.postgres.step',
      label: `one executeToolCalls step of ${STEP_CALLS} parallel calls waiting ${STEP_BODY_MS} ms: memory vs PostgreSQL session, alternating rounds`,
      figures: [
        { name: 'step makespan, memory session', unit: 'ms', stats: summarize(figures.memory.makespan) },
        {
          name: 'step makespan, PostgreSQL session',
          unit: 'ms',
          stats: summarize(figures.postgres.makespan),
        },
        { name: 'makespan PostgreSQL ÷ memory', unit: '×', stats: summarize(ratio) },
        { name: 'last body start, memory session', unit: 'ms', stats: summarize(figures.memory.lastStart) },
        {
          name: 'last body start, PostgreSQL session',
          unit: 'ms',
          stats: summarize(figures.postgres.lastStart),
        },
      ],
    },
  ]
}
