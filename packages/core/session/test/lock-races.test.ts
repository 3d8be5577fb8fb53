import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionError, openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { openJsonlSessionWith } from '../src/jsonl/open-jsonl-session.ts'
import {
  createWorld,
  Crash,
  simulatedProcess,
  systemError,
  type SimulatedProcess,
} from './support/simulated-host.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-session-')

type Outcome =
  | { readonly kind: 'opened'; readonly session: JsonlSession; readonly proc: SimulatedProcess }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string }
  | { readonly kind: 'crashed' }
  | { readonly kind: 'suspended' }

/** Thrown out of a racer whose waiting outlasted the pause it ran in: it is retried afterwards. */
class Suspend extends Error {}

function attempt(proc: SimulatedProcess, path: string): Outcome {
  try {
    return { kind: 'opened', session: openJsonlSessionWith(proc.host, path, { durability: 'write' }), proc }
  } catch (error) {
    if (error instanceof Crash || proc.crashed) return { kind: 'crashed' }
    if (error instanceof Suspend) return { kind: 'suspended' }
    if (SessionError.isInstance(error)) return { kind: 'refused', code: error.code, message: error.message }
    throw error
  }
}

/** A lock left by a process that no longer exists. */
function plantDeadLock(path: string): void {
  writeFileSync(`${path}.lock`, `999999\nleft-by-a-crash\n`)
}

/** Files in the directory other than leftovers a crash may leave (temporary and moved-aside files). */
function lockFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.lock') || name.endsWith('.gate'))
}

/**
 * The single-writer property: of the sessions that opened, exactly one can append (the others get
 * LOCKED and write nothing), the lock names the writer, closing them all leaves no lock, and the
 * file holds exactly what was acknowledged.
 */
function expectOneWriter(dir: string, path: string, outcomes: readonly Outcome[], context: string): void {
  const opened = outcomes.filter((outcome) => outcome.kind === 'opened')
  // Open itself refuses the losers: a session is only returned to a holder of the lock.
  expect(opened.length, context).toBe(1)
  for (const outcome of outcomes) {
    if (outcome.kind === 'refused') expect(outcome.code, `${context}: ${outcome.message}`).toBe('LOCKED')
  }
  const writers: Extract<Outcome, { kind: 'opened' }>[] = []
  for (const outcome of opened) {
    try {
      outcome.session.append('race/write', { pid: outcome.proc.pid })
      writers.push(outcome)
    } catch (error) {
      expect(SessionError.isInstance(error) && error.code, context).toBe('LOCKED')
    }
  }
  expect(writers.length, context).toBe(1)
  const writer = writers[0]!
  expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0], context).toBe(String(writer.proc.pid))
  for (const outcome of opened) outcome.session.close()
  expect(lockFiles(dir), context).toEqual([])
  const reopened = openJsonlSession(path)
  expect(
    reopened.events().map((event) => event.data),
    context,
  ).toEqual([{ pid: writer.proc.pid }])
  reopened.close()
}

/**
 * The pause points of an opener: the indices of its file-system calls from the first to the last
 * that touch the lock, its gate or their temporary files (all named after `<file>.lock`), found by
 * a solo run. Pausing elsewhere (reading the data file) cannot change who gets the lock.
 */
function lockSteps(setUp: (path: string) => void, configure?: (proc: SimulatedProcess) => void): number[] {
  const dir = tempDir()
  const path = join(dir, 's.jsonl')
  setUp(path)
  const proc = simulatedProcess(createWorld())
  configure?.(proc)
  const outcome = attempt(proc, path)
  const openCalls = proc.calls.slice()
  expect(outcome.kind).toBe('opened')
  if (outcome.kind === 'opened') outcome.session.close()
  const touchesLock = openCalls
    .filter((call) => call.args.some((arg) => typeof arg === 'string' && arg.includes('.lock')))
    .map((call) => call.index)
  const first = Math.min(...touchesLock)
  const last = Math.max(...touchesLock)
  return Array.from({ length: last - first + 2 }, (_, i) => first + i)
}

/** `A` pauses before its `k`-th file-system call and `run` happens meanwhile. */
function pauseAt(proc: SimulatedProcess, k: number, run: () => void): void {
  let done = false
  proc.beforeCall = (call) => {
    if (call.index !== k || done) return
    done = true
    run()
  }
}

const withoutHardLinks = (proc: SimulatedProcess): void => {
  proc.override = (call, run) => {
    if (call.name === 'link') throw systemError('EPERM', 'link')
    return run()
  }
}

const SETUPS = {
  'creating the lock': (_path: string): void => {},
  "taking over a dead pid's lock": plantDeadLock,
} as const

describe('T42: two openers, one paused at every step of creation and takeover', () => {
  for (const [label, setUp] of Object.entries(SETUPS)) {
    for (const links of ['hard links', 'no hard links'] as const) {
      it(`T42: ${label} (${links}): exactly one writer whatever the interleaving`, () => {
        const configure = links === 'no hard links' ? withoutHardLinks : undefined
        const steps = lockSteps(setUp, configure)
        expect(steps.length).toBeGreaterThan(5)
        for (const k of steps) {
          const dir = tempDir()
          const path = join(dir, 's.jsonl')
          setUp(path)
          const world = createWorld({ sleepScale: 100 })
          const a = simulatedProcess(world)
          const b = simulatedProcess(world)
          configure?.(a)
          configure?.(b)
          let second: Outcome | undefined
          pauseAt(a, k, () => {
            second = attempt(b, path)
          })
          const first = attempt(a, path)
          a.beforeCall = undefined
          // A may finish in fewer calls than alone (it met B's lock): then B comes after it.
          second ??= attempt(b, path)
          expectOneWriter(dir, path, [first, second], `${label}, ${links}, A paused before call ${k}`)
        }
      })
    }
  }
})

describe("T42: three openers racing for a dead pid's lock", () => {
  it('T42: A paused at every step, B paused at every step inside it, C in between: one writer', () => {
    const steps = lockSteps(plantDeadLock)
    let scenarios = 0
    for (const k of steps) {
      for (let j = 0; ; j += 1) {
        const dir = tempDir()
        const path = join(dir, 's.jsonl')
        plantDeadLock(path)
        const world = createWorld({ sleepScale: 100 })
        const [a, b, c] = [simulatedProcess(world), simulatedProcess(world), simulatedProcess(world)]
        let second: Outcome | undefined
        let third: Outcome | undefined
        pauseAt(b, j, () => {
          third = attempt(c, path)
        })
        pauseAt(a, k, () => {
          second = attempt(b, path)
        })
        const first = attempt(a, path)
        a.beforeCall = undefined
        second ??= attempt(b, path)
        b.beforeCall = undefined
        // C runs only when B reached its j-th call; past B's last call, every j was tried.
        if (third === undefined) {
          third = attempt(c, path)
          b.beforeCall = undefined
          expectOneWriter(dir, path, [first, second, third], `A at ${k}, C after B`)
          rmSync(dir, { recursive: true, force: true })
          break
        }
        expectOneWriter(dir, path, [first, second, third], `A paused at ${k}, B paused at ${j}`)
        rmSync(dir, { recursive: true, force: true })
        scenarios += 1
      }
    }
    expect(scenarios).toBeGreaterThan(steps.length * 5)
  }, 300_000)

  it('T42: B runs in one pause of A and C in a later one, for every pair of pauses: one writer', () => {
    const steps = lockSteps(plantDeadLock)
    for (const k1 of steps) {
      for (const k2 of steps.filter((k) => k > k1)) {
        const dir = tempDir()
        const path = join(dir, 's.jsonl')
        plantDeadLock(path)
        const world = createWorld({ sleepScale: 100 })
        const [a, b, c] = [simulatedProcess(world), simulatedProcess(world), simulatedProcess(world)]
        let second: Outcome | undefined
        let third: Outcome | undefined
        a.beforeCall = (call) => {
          if (call.index === k1) second = attempt(b, path)
          if (call.index === k2) third = attempt(c, path)
        }
        const first = attempt(a, path)
        a.beforeCall = undefined
        second ??= attempt(b, path)
        third ??= attempt(c, path)
        expectOneWriter(dir, path, [first, second, third], `B in A's pause at ${k1}, C in its pause at ${k2}`)
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }, 300_000)
})
