import { randomBytes } from 'node:crypto'
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import { createPostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { startExampleProcess, type ExampleProcess, type Line } from './support/example-process.ts'

// Real processes on a real PostgreSQL and a real Redis (the project's globalSetup provides both).
// Nothing is timed: every step waits for a line a process reports, the slow tool bodies wait for
// files the test writes, and the takeover waits (the harness retries its open) until the killed
// harness's lease has run out.
const postgresUrl = inject('postgresUrl')
const redisUrl = inject('redisUrl')
const LEASE_MS = 3_000
const tag = randomBytes(4).toString('hex')
const schema = `scale_out_${tag}`
const queue = `scale-out-${tag}`

let pool: pg.Pool
let gateDir: string
const running: ExampleProcess[] = []

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: postgresUrl, max: 2 })
  pool.on('error', () => {})
  gateDir = mkdtempSync(join(tmpdir(), 'dsh-scale-out-'))
})
afterEach(async () => {
  for (const started of running.splice(0)) {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL')
    await started.exited
  }
})
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await pool.end()
  rmSync(gateDir, { recursive: true, force: true })
})

function start(label: string, entry: 'harness' | 'worker', args: readonly string[]): ExampleProcess {
  const started = startExampleProcess({ label, entry, args })
  running.push(started)
  return started
}

const byCall = (callId: string) => (line: Line) => line.callId === callId
const committed = (p: ExampleProcess): [unknown, unknown][] =>
  p.lines.filter((line) => line.event === 'committed').map((line) => [line.callId, line.code])

/** callId → error code ('ok' for a success) of every tool/result, in log order. */
function results(events: readonly SessionEvent[]): [string, string][] {
  const calls = new Map(
    events.filter((e) => e.type === 'tool/call').map((e) => [e.seq, (e.data as { callId: string }).callId]),
  )
  return events
    .filter((e) => e.type === 'tool/result')
    .map((e) => [
      calls.get(e.sourceEventSeqs![0]!)!,
      (e.data as { error?: { code: string } }).error?.code ?? 'ok',
    ])
}

/**
 * Makes a file appear whole, as an artifact another system produces would: written aside, then
 * renamed into place. A plain write creates the file empty first, and `await_file` polling in that
 * moment reported 0 bytes (seen once in CI).
 */
function publish(path: string, text: string): void {
  writeFileSync(`${path}.part`, text)
  renameSync(`${path}.part`, path)
}

describe('a harness on PostgreSQL with its tools on a BullMQ worker, killed mid-step', () => {
  it(
    'T30, T42, D5, T64: a second harness is refused while the first lives, takes the session over after its lease ran out, resumes the turn with the results the worker kept: every call answered once, no body run twice',
    { timeout: 90_000 },
    async () => {
      const sessionId = `ticket-${tag}`
      const worker = start('worker', 'worker', [
        ...['--redis', redisUrl, '--queue', queue, '--name', 'worker-1', '--concurrency', '8'],
      ])
      await worker.next('ready')
      const harness = (holder: string): ExampleProcess =>
        start(holder, 'harness', [
          ...['--postgres', postgresUrl, '--redis', redisUrl, '--schema', schema, '--queue', queue],
          ...[
            '--session',
            sessionId,
            '--holder',
            holder,
            '--lease-ms',
            String(LEASE_MS),
            '--gate-dir',
            gateDir,
          ],
        ])

      // The first harness starts the turn: a step of two quick digests and two slow await_file
      // calls. The quick ones are committed; the slow ones run on the worker, waiting for files.
      const first = harness('harness-1')
      expect((await first.next('opened')).lastSeq).toBe(0)
      await first.next('committed', byCall('d2'))
      await worker.next('body-start', byCall('w1'))
      await worker.next('body-start', byCall('w2'))
      expect(committed(first)).toEqual([
        ['d1', 'ok'],
        ['d2', 'ok'],
      ])

      // Tried while the first is alive (and renewing its lease), the second is refused.
      const second = harness('harness-2')
      const refused = await second.next('refused')
      expect(refused.code).toBe('LOCKED')
      expect(refused.message).toMatch(new RegExp(`session "${sessionId}" is held by harness-1 `))
      expect(second.lines.some((line) => line.event === 'opened')).toBe(false)

      // SIGKILL mid-step. The worker outlives it: its bodies finish once their files appear.
      first.child.kill('SIGKILL')
      expect(await first.exited).toBe('SIGKILL')
      publish(join(gateDir, 'first'), 'artifact one')
      publish(join(gateDir, 'second'), 'artifact two')
      await worker.next('body-end', byCall('w1'))
      await worker.next('body-end', byCall('w2'))

      // Once the lease has run out, the second opens the session as the first left it: the turn's
      // start, the user's message, the assistant's message, four calls, two results.
      const opened = await second.next('opened')
      expect(opened).toMatchObject({ lastSeq: 9, holder: 'harness-2' })
      expect(second.lines.findIndex((line) => line.event === 'refused')).toBeLessThan(
        second.lines.indexOf(opened),
      )
      // It resumes: the two calls in flight are collected from the worker's jobs (T52, T64: their
      // bodies ran once, on the worker, while no harness lived), so the model sees their real
      // results, retries nothing, and the turn ends with its text.
      const finished = await second.next('finished')
      expect(finished).toMatchObject({
        reason: 'completed',
        text: 'Done: 4 of 4 calls succeeded; retried nothing.',
        lastSeq: 13, // the README's run: two results collected, the model's text, turn/end
      })
      expect(await second.exited).toBe(0)

      // The log in PostgreSQL: every call has exactly one result, the pairs verify, one turn.
      const events = (await createPostgresSessionStore({ pool, schema }).load(sessionId))!
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1))
      expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
      const calls = events
        .filter((e) => e.type === 'tool/call')
        .map((e) => (e.data as { callId: string }).callId)
      expect(calls).toEqual(['d1', 'd2', 'w1', 'w2'])
      expect(Object.fromEntries(results(events))).toEqual({ d1: 'ok', d2: 'ok', w1: 'ok', w2: 'ok' })
      // what the worker's bodies returned: the sizes of the files written after the first harness died
      const sizes = events
        .filter((e) => e.type === 'tool/result')
        .map((e) => JSON.stringify((e.data as { message: unknown }).message))
      expect(sizes.filter((text) => text.includes('12 bytes'))).toHaveLength(2)
      expect(results(events)).toHaveLength(calls.length)
      expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
      expect(events.at(-1)!.type).toBe('turn/end')
      const lastMessage = events.filter((e) => e.type === 'assistant/message').at(-1)!.data as {
        message: { content: { type: string; text?: string }[] }
      }
      expect(lastMessage.message.content).toEqual([{ type: 'text', text: finished.text }])

      // The worker ran every body exactly once per call id, the ones collected on resume included.
      worker.child.kill('SIGTERM')
      expect(await worker.exited).toBe(0)
      const runs = worker.lines.filter((line) => line.event === 'body-start').map((line) => line.callId)
      expect([...runs].sort()).toEqual([...calls].sort())
    },
  )
})
