import { afterEach, describe, expect, it } from 'vitest'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import { useTestDatabase } from './support/postgres.ts'
import { startWriter, type WriterConfig, type WriterProcess } from './support/writer-process.ts'

// Real processes on a real server. Nothing is timed: each step waits for what a process reports,
// and a takeover simply waits (by retrying the open) until the dead holder's lease has run out.
const db = useTestDatabase('processes')
const LEASE_MS = 1_000

const running: WriterProcess[] = []
afterEach(async () => {
  for (const writer of running.splice(0)) {
    if (writer.child.exitCode === null && writer.child.signalCode === null) writer.child.kill('SIGKILL')
    await writer.exited
  }
})

function writer(config: Omit<WriterConfig, 'url' | 'schema' | 'leaseMs'>): WriterProcess {
  const started = startWriter({ ...config, url: db.url, schema: db.schema, leaseMs: LEASE_MS })
  running.push(started)
  return started
}

/** Waits until `w` has acknowledged at least `count` appends. */
async function acked(w: WriterProcess, count: number): Promise<void> {
  while (w.acks().length < count) await w.next('ack', w.lines.length)
}

describe('writers in separate processes', () => {
  it(
    'T42/T31: two processes race for one session: exactly one holds it, the other gets LOCKED; after SIGKILL of the holder the other takes over, loses no acknowledged event and resumes the agent',
    { timeout: 120_000 },
    async () => {
      const id = db.id('race')
      const a = writer({ id, holder: 'writer-a', role: 'agent', wait: false })
      const b = writer({ id, holder: 'writer-b', role: 'agent', wait: false })
      // Each reports first whether its open succeeded: exactly one of them did.
      const firsts = await Promise.all([a.line(0), b.line(0)])
      expect(firsts.map((line) => line.event).sort()).toEqual(['opened', 'refused'])
      const [holder, loser] = firsts[0]!.event === 'opened' ? [a, b] : [b, a]
      const refused = await loser.next('refused')
      expect(refused.code).toBe('LOCKED')
      const holderName = holder === a ? 'writer-a' : 'writer-b'
      expect(refused.message).toMatch(
        new RegExp(
          `session "${id}" is held by ${holderName} \\(its lease runs out at .*, in \\d+ ms, unless renewed\\)`,
        ),
      )
      expect(holder.lines.some((line) => line.event === 'refused')).toBe(false)
      await loser.exited

      // The holder works; a third process waits for the session.
      await acked(holder, 25)
      const taker = writer({ id, holder: 'writer-c', role: 'resume', wait: true })
      expect((await taker.next('refused')).code).toBe('LOCKED')
      holder.child.kill('SIGKILL')
      await holder.exited
      const acknowledged = holder.acks()
      expect(acknowledged.length).toBeGreaterThanOrEqual(25)

      // Once the dead holder's lease has run out, the taker opens the session: every acknowledged
      // event is there (an append in flight at the kill may be there too, never fewer).
      const opened = await taker.next('opened')
      const lastAcked = Math.max(...acknowledged)
      expect(acknowledged).toEqual(acknowledged.map((_, i) => i + 1))
      expect(opened.lastSeq).toBeGreaterThanOrEqual(lastAcked)
      expect(opened.lastSeq).toBeLessThanOrEqual(lastAcked + 2)
      // At most the calls of the step the kill interrupted are unanswered (or, killed right after
      // their assistant message, not yet recorded).
      expect(
        opened.problems.filter((kind) => kind !== 'unanswered-call' && kind !== 'unrecorded-call'),
      ).toEqual([])
      expect(opened.problems.length).toBeLessThanOrEqual(2)

      // resumeAgent, unchanged, answers them with INTERRUPTED and closes the turn.
      const resumed = await taker.next('resumed')
      expect(resumed.problems).toEqual([])
      const stored = await db.store().load(id)
      expect(stored!.map((event) => event.seq)).toEqual(stored!.map((_, i) => i + 1))
      expect(stored!.length).toBe(resumed.lastSeq)
      expect(verifyToolPairs(stored!)).toEqual({ ok: true, problems: [] })
      expect(stored!.at(-1)!.type).toBe('turn/end')
      taker.release()
      await taker.exited
    },
  )

  it(
    'T42: a writer paused past its lease gets LOCKED on its next append and writes nothing after the taker took over',
    { timeout: 120_000 },
    async () => {
      const id = db.id('paused')
      const paused = writer({ id, holder: 'writer-p', role: 'appender', wait: false })
      await acked(paused, 5)
      paused.child.kill('SIGSTOP')
      const ackedBefore = paused.acks().length

      // Another writer takes the session over once the paused one's lease has run out, and writes.
      const taker = writer({ id, holder: 'writer-t', role: 'appender', wait: true, appends: 3 })
      await taker.next('holding')
      paused.child.kill('SIGCONT')
      const refusal = await paused.next('append-refused')
      expect(refusal.code).toBe('LOCKED')
      expect(refusal.message).toMatch(
        new RegExp(
          `^append\\("note", data\\): session "${id}" (was taken over by writer-t after this writer's lease ran out|is no longer held by this writer .*); nothing (was|more is) written`,
        ),
      )
      await paused.exited
      taker.release()
      await taker.exited

      const stored = (await db.store().load(id))!
      const writers = stored.map((event) => (event.data as { writer: string }).writer)
      const fromPaused = writers.filter((w) => w === 'writer-p').length
      // Exactly the paused writer's acknowledged appends are stored (one in flight at the pause may
      // have committed and been acknowledged after SIGCONT), and none comes after the takeover.
      expect(paused.acks().length).toBeGreaterThanOrEqual(ackedBefore)
      expect(fromPaused).toBe(paused.acks().length)
      expect(writers).toEqual([...Array(fromPaused).fill('writer-p'), ...Array(3).fill('writer-t')])
      expect(stored.map((event) => event.seq)).toEqual(stored.map((_, i) => i + 1))
    },
  )
})
