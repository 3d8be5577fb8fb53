import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { TS_CACHE_DIR } from '../../../../test-support/ts-child.ts'

const makeTempDir = useTempDirs('dsh-session-')
const FIXTURE = fileURLToPath(new URL('./fixtures/append-loop.mjs', import.meta.url))
const KILLS = 24

interface ChildRun {
  /** `lastSeq` the child saw on open, if it got that far. */
  readonly openedAt: number | undefined
  /** Every seq whose append returned before the kill (complete lines only). */
  readonly acknowledged: readonly number[]
  readonly warnings: readonly string[]
}

/** Small deterministic PRNG so a failure can be replayed from the printed seed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

/**
 * Runs the append loop and SIGKILLs it: either after `afterSeqs` acknowledged appends, or (when
 * `afterSeqs` is undefined) at once, possibly before it even opened the file.
 */
function runAndKill(options: {
  path: string
  cacheDir: string
  run: number
  afterSeqs: number | undefined
}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, options.path, String(options.run)], {
      env: { ...process.env, DSH_TS_CACHE: options.cacheDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let buffered = ''
    let stderr = ''
    let openedAt: number | undefined
    let killed = false
    const acknowledged: number[] = []
    const warnings: string[] = []
    const kill = (): void => {
      if (killed) return
      killed = true
      child.kill('SIGKILL')
    }
    if (options.afterSeqs === undefined) setImmediate(kill)
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      // The last piece has no newline yet: it may be a seq cut short by the kill, so it never counts.
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        if (line.startsWith('seq ')) acknowledged.push(Number(line.slice(4)))
        else if (line.startsWith('open ')) openedAt = Number(line.slice(5))
        else if (line.startsWith('warn ')) warnings.push(line.slice(5))
      }
      if (options.afterSeqs !== undefined && acknowledged.length >= options.afterSeqs) kill()
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`child ended by itself (code ${code}, signal ${signal}): ${stderr}`))
      else resolve({ openedAt, acknowledged, warnings })
    })
  })
}

describe('T31: crash safety of the JSONL store', () => {
  it(`T31: after ${KILLS} SIGKILLs at random moments, every reopen is a valid prefix holding every acknowledged event`, async () => {
    const seed = Date.now() % 1_000_000
    const next = random(seed)
    const dir = makeTempDir()
    const path = join(dir, 'crash.jsonl')
    const cacheDir = TS_CACHE_DIR
    let verified = 0
    let repairs = 0
    for (let run = 1; run <= KILLS; run += 1) {
      const afterSeqs = run % 6 === 0 ? undefined : 1 + Math.floor(next() * 120)
      const child = await runAndKill({ path, cacheDir, run, afterSeqs })
      const context = `seed ${seed}, run ${run}`
      if (child.openedAt !== undefined) expect(child.openedAt, context).toBe(verified)
      // A SIGKILL only rarely lands inside write(); every fourth run also leaves the tail a torn
      // write would, so repair-then-continue is exercised in this loop on every run of the test.
      const fragment = run % 4 === 0 ? tornFragment(next, run) : undefined
      if (fragment !== undefined) appendFileSync(path, fragment)
      // openJsonlSession throws CORRUPT_LINE on anything but a torn tail, so opening at all
      // already proves every whole line parses and seqs run 1..n without gaps.
      const session: JsonlSession = openJsonlSession(path, { durability: 'write' })
      if (session.repaired !== undefined) repairs += 1
      if (fragment !== undefined)
        expect(session.repaired?.bytesCut, context).toBeGreaterThanOrEqual(fragment.length)
      const events = session.events()
      expect(
        events.every((event, i) => event.seq === i + 1),
        context,
      ).toBe(true)
      expect(session.lastSeq, context).toBeGreaterThanOrEqual(verified)
      for (const seq of child.acknowledged) expect(seq, context).toBeLessThanOrEqual(session.lastSeq)
      if (child.acknowledged.length > 0) {
        expect(child.acknowledged[0], context).toBe(verified + 1)
        expect(child.acknowledged, context).toEqual(child.acknowledged.map((_, i) => verified + 1 + i))
      }
      for (const event of events.slice(verified)) {
        const data = event.data as { run: number; size: number; pad: string }
        expect(data.run, context).toBe(run)
        expect(data.pad.length, context).toBe(data.size)
      }
      verified = session.lastSeq
      session.close()
    }
    expect(verified).toBeGreaterThan(KILLS)
    expect(repairs).toBeGreaterThanOrEqual(Math.floor(KILLS / 4))
    console.info(
      `T31 crash test: ${KILLS} kills, ${verified} events survived, ${repairs} torn tails repaired (seed ${seed})`,
    )
  }, 120_000)
})

/** A prefix of a plausible event line (no newline), sometimes followed by NULs. */
function tornFragment(next: () => number, run: number): Buffer {
  const line = JSON.stringify({
    seq: 0,
    type: 'crash/tick',
    time: new Date(0).toISOString(),
    data: { run, pad: 'y'.repeat(300) },
  })
  const cut = 1 + Math.floor(next() * (line.length - 1))
  const nuls = next() < 0.5 ? 0 : 1 + Math.floor(next() * 4096)
  return Buffer.concat([Buffer.from(line.slice(0, cut)), Buffer.alloc(nuls)])
}
