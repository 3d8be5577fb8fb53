import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createAgent, resumeAgent } from '@deepseek-ai/dsh-agent-loop'
import { createScriptedModel, textBlock } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  type AnySession,
  verifyEffects,
  verifyToolPairs,
  type SessionEvent,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { createPostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { createRemoteDispatch, type RemoteDispatch } from '@deepseek-ai/dsh-dispatch-bullmq'
import {
  cellContext,
  firstModel,
  orderTools,
  watchedCallId,
  type Cell,
  type WorkerPoint,
} from './support/effects-cells.ts'
import { loadCellEvents, openCellSession, type CellStores } from './support/effects-stores.ts'
import { callerCells, workerCells, type Expected } from './support/effects-matrix-table.ts'
import { startLineProcess, type LineProcess } from './support/line-process.ts'

// The crash matrix of issue 27 over PostgreSQL (and, for remote bodies, JSONL files too), with
// local and remote bodies (docs/scaling.md, "Effects across a crash"): real processes, SIGKILLed
// where each cell says. Nothing is timed: a process is killed once every cell it runs has printed
// that it stopped at its point (a pause injected in the session, the body or the worker around it),
// and a worker's paused body goes on only when the test pushes to its release list. Caller
// crashes: one harness process runs the first turn of every such cell at once (each on its own
// session) and is killed; the test resumes every session. Worker crashes: the turns run here, a
// worker process is killed under them (between its claim and its started mark, after the mark,
// inside the body, after the body before its reply is stored), another takes over.
const postgresUrl = inject('postgresUrl')
const redisUrl = inject('redisUrl')
const LEASE_MS = 500
const tag = randomBytes(4).toString('hex')
const schema = `effects_${tag}`
const sessionPrefix = `shop-${tag}-`
const CALLER = fileURLToPath(new URL('./fixtures/effects-caller.ts', import.meta.url))
const WORKER = fileURLToPath(new URL('./fixtures/effects-worker.ts', import.meta.url))

let pool: pg.Pool
let redis: Redis
let dir: string
const processes: LineProcess[] = []
const dispatches: RemoteDispatch[] = []
/** Each cell's log right after the crash, and at the end. */
const afterCrash = new Map<string, readonly SessionEvent[]>()
const atEnd = new Map<string, readonly SessionEvent[]>()
/** What each resumed or surviving turn ended with. */
const endings = new Map<string, string | undefined>()

const store = () => createPostgresSessionStore({ pool, schema, leaseMs: LEASE_MS, holder: 'test' })
const sessionOf = (cell: Cell): string => `${sessionPrefix}${cell.id}`
const stores = (): CellStores => ({ postgres: store, dir })
const eventsOf = (cell: Cell) => loadCellEvents(cell, stores(), sessionOf(cell))

function start(script: string, config: object): LineProcess {
  const started = startLineProcess(script, config)
  processes.push(started)
  return started
}

function dispatcher(queue: string): RemoteDispatch {
  const dispatch = createRemoteDispatch({
    connection: redisUrl,
    queueName: queue,
    remote: ['place_order', 'place_order_once'],
    checkIntervalMs: 100,
  })
  dispatches.push(dispatch)
  return dispatch
}

/** Opens a cell's session, waiting while the lease of a killed holder runs out. */
async function openWhenFree(cell: Cell): Promise<AnySession> {
  for (;;) {
    try {
      return await openCellSession(cell, stores(), sessionOf(cell))
    } catch (error) {
      if (!SessionError.isInstance(error) || error.code !== 'LOCKED') throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

const localTools = () =>
  orderTools({ dir, pauses: true, report: () => {}, pause: () => Promise.reject(new Error('no pause here')) })

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: postgresUrl, max: 10 })
  pool.on('error', () => {})
  redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 })
  dir = mkdtempSync(join(tmpdir(), 'dsh-effects-'))
  await store().migrate()
})

afterAll(async () => {
  for (const started of processes.splice(0)) await started.kill()
  for (const dispatch of dispatches.splice(0)) await dispatch.close()
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await pool.end()
  redis.disconnect()
  rmSync(dir, { recursive: true, force: true })
})

describe('effects across a caller’s crash over PostgreSQL and JSONL, local and remote bodies (T49–T53, T63, T64)', () => {
  beforeAll(async () => {
    const queue = `effects-${tag}`
    const worker = start(WORKER, {
      redisUrl,
      queue,
      dir,
      name: 'worker-1',
      lockDurationMs: 10_000,
      pauses: true,
    })
    await worker.next((line) => line.ready === 'worker-1')
    const harness = start(CALLER, {
      postgresUrl,
      schema,
      leaseMs: LEASE_MS,
      redisUrl,
      queue,
      dir,
      sessionPrefix,
      cells: callerCells.map(({ cell }) => cell),
    })
    // every cell stopped at its point: in the harness, or in the worker's body it waits for (a
    // cell whose turn ended instead is killed all the same, and fails its checks)
    await Promise.all(
      callerCells.map(({ cell }) => {
        const stopped = (line: { cell?: unknown; at?: unknown }) =>
          line.cell === cell.id && line.at !== undefined
        const ended = harness.next((line) => line.cell === cell.id && line.finished !== undefined)
        const where = cell.bodies === 'remote' && cell.crash.at === 'in-body' ? worker : harness
        return Promise.race([where.next(stopped), ended])
      }),
    )
    await harness.kill()
    for (const { cell } of callerCells) afterCrash.set(cell.id, await eventsOf(cell))

    const dispatch = dispatcher(queue)
    await dispatch.ready
    const tools = localTools()
    const resumed = callerCells.map(async ({ cell }) => {
      const session = await openWhenFree(cell)
      const model = createScriptedModel({ turns: [[textBlock('resumed')]] })
      const ctx = cellContext(cell, tools, dispatch)
      const { agent, result } = await resumeAgent({ ctx, name: 'shop', model, session })
      endings.set(cell.id, result?.reason)
      agent.dispose()
      await session.close()
      atEnd.set(cell.id, await eventsOf(cell))
    })
    // the bodies still paused on the worker go on; their resumed callers re-attach to them
    for (const { cell } of callerCells)
      if (cell.bodies === 'remote' && cell.crash.at === 'in-body')
        await redis.rpush(`${queue}:release:${cell.id}`, 'go')
    await Promise.all(resumed)
  }, 120_000)

  for (const { cell, expected } of callerCells) it(title(cell, expected), () => check(cell, expected))
})

describe('effects across a worker’s crash (D10, D11, D12, T53)', () => {
  beforeAll(async () => {
    const queue = `effects-w-${tag}`
    const doomed = start(WORKER, {
      redisUrl,
      queue,
      dir,
      name: 'doomed',
      lockDurationMs: 1_000,
      pauses: true,
    })
    await doomed.next((line) => line.ready === 'doomed')
    const dispatch = dispatcher(queue)
    await dispatch.ready
    const tools = localTools()
    const runs = workerCells.map(async ({ cell }) => {
      const session = await openCellSession(cell, stores(), sessionOf(cell))
      const agent = createAgent({
        ctx: cellContext(cell, tools, dispatch),
        name: 'shop',
        model: firstModel(cell),
        session,
      })
      const result = await agent.run('Place order A-1.')
      endings.set(cell.id, result.reason)
      agent.dispose()
      await session.close()
      atEnd.set(cell.id, await eventsOf(cell))
    })
    await Promise.all(
      workerCells.map(({ cell }, index) =>
        Promise.race([doomed.next((line) => line.cell === cell.id && line.at !== undefined), runs[index]]),
      ),
    )
    // while the calls wait on it, the worker dies; its log says so much at this moment
    await doomed.kill()
    for (const { cell } of workerCells) afterCrash.set(cell.id, await eventsOf(cell))
    const rescue = start(WORKER, {
      redisUrl,
      queue,
      dir,
      name: 'rescue',
      lockDurationMs: 10_000,
      pauses: false,
    })
    await rescue.next((line) => line.ready === 'rescue')
    await Promise.all(runs)
  }, 120_000)

  for (const { cell, expected } of workerCells) it(title(cell, expected), () => check(cell, expected))
})

const WORKER_RULE: Record<WorkerPoint, [rule: string, where: string]> = {
  'after-claim': ['T73/D12', 'between its claim and its started mark'],
  'after-mark': ['D11', 'right after its started mark'],
  'before-effect': ['D10', 'before the effect'],
  'after-effect': ['D10', 'after the effect'],
  'after-body': ['D10', 'after the body, before its reply is stored'],
}

function title(cell: Cell, expected: Expected): string {
  const rule =
    cell.crash.who === 'worker'
      ? WORKER_RULE[cell.crash.at][0]
      : cell.shape === 'nested'
        ? 'T63'
        : cell.bodies === 'remote'
          ? 'T52/T64'
          : 'T50/T51'
  const where =
    cell.crash.who === 'worker'
      ? `worker killed ${WORKER_RULE[cell.crash.at][1]}`
      : `caller killed ${cell.crash.at}${cell.shape === 'nested' ? ' (a program’s call)' : ''}`
  const answer = { real: 'the real result', INTERRUPTED: 'INTERRUPTED', none: 'never recorded' }[
    expected.answer
  ]
  return `T74/${rule}: ${cell.store === 'jsonl' ? 'JSONL, ' : ''}${cell.bodies} body, ${where}, ${cell.kind === 'idempotent' ? 'idempotent' : 'not idempotent'}: ${expected.effects} effect, ${expected.bodies} body run, ${answer}, verifyEffects ${expected.unknownAtEnd ? 'lists it' : 'clean'}`
}

function linesOf(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : []
}

function resultOf(events: readonly SessionEvent[], callId: string): ToolResultEventData | undefined {
  const event = events.find(
    (e) =>
      e.type === 'tool/result' &&
      (e.data as unknown as ToolResultEventData).message.content[0]?.callId === callId,
  )
  return event?.data as unknown as ToolResultEventData | undefined
}

function check(cell: Cell, expected: Expected): void {
  const events = atEnd.get(cell.id)!
  const crashed = afterCrash.get(cell.id)!
  const watched = watchedCallId(cell)
  expect(endings.get(cell.id)).toBe('completed')
  expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
  const unknown = (log: readonly SessionEvent[]) => verifyEffects(log).unknown.map((entry) => entry.callId)
  expect(unknown(crashed), 'verifyEffects after the crash').toEqual(
    expected.unknownAfterCrash ? [watched] : [],
  )
  expect(unknown(events), 'verifyEffects at the end').toEqual(expected.unknownAtEnd ? [watched] : [])

  const answer = resultOf(events, watched)
  if (expected.answer === 'real') {
    expect(answer?.error).toBeUndefined()
    expect(JSON.stringify(answer?.message)).toContain('order A-1 placed')
  } else if (expected.answer === 'INTERRUPTED') expect(answer?.error?.code).toBe('INTERRUPTED')
  else expect(answer).toBeUndefined()
  if (cell.shape === 'nested') {
    // the program cannot go on; its run_code says what its call did
    const outer = resultOf(events, 'rc')!
    expect(outer.error?.code).toBe('INTERRUPTED')
    if (expected.answer === 'none') expect(JSON.stringify(outer.message)).not.toContain(watched)
    else expect(JSON.stringify(outer.message)).toContain(`(call ${watched})`)
    if (expected.answer === 'real') expect(JSON.stringify(outer.message)).toContain('order A-1 placed')
  }

  // the supplier the test owns: how often the effect happened, and under which key
  const call = events.find((e) => e.type === 'tool/call' && (e.data as { callId: string }).callId === watched)
  // T49: the loop's session id (recorded on its first turn/start) and the call's id
  const sessionId = (events.find((e) => e.type === 'turn/start')!.data as { sessionId: string }).sessionId
  const key = `${sessionId}:${watched}`
  if (expected.answer === 'none') expect(call).toBeUndefined()
  else expect((call?.data as { idempotencyKey?: string }).idempotencyKey).toBe(key)
  const bodies = linesOf(join(dir, `${cell.id}.bodies`))
  expect(linesOf(join(dir, `${cell.id}.effects`))).toEqual(
    Array.from({ length: expected.effects }, () => key),
  )
  expect(bodies).toEqual(Array.from({ length: expected.bodies }, () => key))
  const attempts = events
    .filter((e) => e.type === 'tool/began' && (e.data as { callId: string }).callId === watched)
    .map((e) => (e.data as { attempt: number }).attempt)
  expect(attempts).toEqual(expected.attempts)
}
