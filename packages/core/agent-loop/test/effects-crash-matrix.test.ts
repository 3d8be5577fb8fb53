import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  openJsonlSession,
  verifyEffects,
  verifyToolPairs,
  type SessionEvent,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const SCRIPT = fileURLToPath(new URL('./fixtures/effects-process.ts', import.meta.url))
const PACKAGE_JSON = new URL('../package.json', import.meta.url)
const tempDir = useTempDirs('dsh-effects-')

type Point = 'before-call' | 'after-call' | 'in-body' | 'after-body' | 'after-result'
type ToolKind = 'idempotent' | 'once'

interface Outcome {
  readonly lines: Record<string, unknown>[]
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/**
 * Runs one process of the fixture. With `killAt`, waits for its `{"at": killAt}` line (the pause
 * the fixture injected there) and SIGKILLs it; otherwise lets it finish.
 */
function processRun(args: readonly string[], killAt?: Point): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER_TS_HOOKS, SCRIPT, ...args], {
      env: tsChildEnv(PACKAGE_JSON),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines: Record<string, unknown>[] = []
    let buffered = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        const parsed = JSON.parse(line) as Record<string, unknown>
        lines.push(parsed)
        if (killAt !== undefined && parsed.at === killAt) child.kill('SIGKILL')
      }
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (killAt === undefined && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`))
      else resolve({ lines, code, signal })
    })
  })
}

function readLines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : []
}

function eventsOf(path: string): readonly SessionEvent[] {
  const session = openJsonlSession(path)
  try {
    return session.events()
  } finally {
    session.close()
  }
}

function resultOf(events: readonly SessionEvent[]): ToolResultEventData | undefined {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as unknown as ToolResultEventData)
    .at(-1)
}

interface Expected {
  /** What the model sees for the call after the resume. */
  readonly answer: 'real' | 'INTERRUPTED'
  /** Times the effect happened (the service's count). */
  readonly effects: number
  /** Times the body ran, over both processes. */
  readonly bodies: number
  /** Whether verifyEffects lists the call after the crash (before the resume) and after the resume. */
  readonly unknownAfterCrash: boolean
  readonly unknownAfterResume: boolean
}

/** The table of docs/scaling.md ("Effects across a crash"), cell by cell. */
const MATRIX: Record<Point, Record<ToolKind, Expected>> = {
  'before-call': {
    idempotent: {
      answer: 'real',
      effects: 1,
      bodies: 1,
      unknownAfterCrash: false,
      unknownAfterResume: false,
    },
    once: { answer: 'real', effects: 1, bodies: 1, unknownAfterCrash: false, unknownAfterResume: false },
  },
  'after-call': {
    idempotent: {
      answer: 'real',
      effects: 1,
      bodies: 1,
      unknownAfterCrash: false,
      unknownAfterResume: false,
    },
    once: { answer: 'real', effects: 1, bodies: 1, unknownAfterCrash: false, unknownAfterResume: false },
  },
  'in-body': {
    idempotent: {
      answer: 'real',
      effects: 1,
      bodies: 2,
      unknownAfterCrash: false,
      unknownAfterResume: false,
    },
    once: { answer: 'INTERRUPTED', effects: 1, bodies: 1, unknownAfterCrash: true, unknownAfterResume: true },
  },
  'after-body': {
    idempotent: {
      answer: 'real',
      effects: 1,
      bodies: 2,
      unknownAfterCrash: false,
      unknownAfterResume: false,
    },
    once: { answer: 'INTERRUPTED', effects: 1, bodies: 1, unknownAfterCrash: true, unknownAfterResume: true },
  },
  'after-result': {
    idempotent: {
      answer: 'real',
      effects: 1,
      bodies: 1,
      unknownAfterCrash: false,
      unknownAfterResume: false,
    },
    once: { answer: 'real', effects: 1, bodies: 1, unknownAfterCrash: false, unknownAfterResume: false },
  },
}

describe('effects across a crash: a real process SIGKILLed at each point, then resumed (JSONL session, local bodies)', () => {
  for (const point of Object.keys(MATRIX) as Point[]) {
    for (const kind of ['idempotent', 'once'] as const) {
      const expected = MATRIX[point][kind]
      const tool = kind === 'idempotent' ? 'idempotent: true' : 'not idempotent'
      it(`T49–T53: killed ${point}, ${tool}: ${expected.effects} effect, the model sees ${expected.answer === 'real' ? 'the real result' : 'INTERRUPTED'}, verifyEffects ${expected.unknownAfterResume ? 'lists it' : 'is clean'}`, async () => {
        const dir = tempDir()
        const path = join(dir, 'session.jsonl')
        const first = await processRun([path, dir, kind, 'first', point], point)
        expect(first.signal, 'the first process was SIGKILLed at its pause').toBe('SIGKILL')
        expect(first.lines.at(-1)).toMatchObject({ at: point })

        const crashed = eventsOf(path)
        const unknown = verifyEffects(crashed).unknown.map((entry) => entry.callId)
        expect(unknown).toEqual(expected.unknownAfterCrash ? ['o1'] : [])

        const second = await processRun([path, dir, kind, 'resume', point])
        expect(second.lines.at(-1)).toMatchObject({ reason: 'completed', text: 'resumed' })

        const events = eventsOf(path)
        expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
        const answered = resultOf(events)!
        if (expected.answer === 'real') {
          expect(answered.error).toBeUndefined()
          expect(answered.message.content[0]).toMatchObject({ callId: 'o1' })
          expect(JSON.stringify(answered.message)).toContain('order A-1 placed')
        } else expect(answered.error?.code).toBe('INTERRUPTED')
        const report = verifyEffects(events)
        expect(report.unknown.map((entry) => entry.callId)).toEqual(expected.unknownAfterResume ? ['o1'] : [])
        expect(report.ok).toBe(!expected.unknownAfterResume)

        // the service the test owns: how often the effect happened, and with which key
        const effects = readLines(join(dir, 'effects.log'))
        const bodies = readLines(join(dir, 'bodies.log'))
        expect(effects).toHaveLength(expected.effects)
        expect(bodies).toHaveLength(expected.bodies)
        const call = events.find((event) => event.type === 'tool/call')!.data as { idempotencyKey?: string }
        expect(call.idempotencyKey).toMatch(/:o1$/)
        // every run of the body saw the one key the log recorded
        expect(new Set(bodies)).toEqual(new Set([call.idempotencyKey]))
        const attempts = events
          .filter((event) => event.type === 'tool/began')
          .map((event) => (event.data as { attempt: number }).attempt)
        expect(attempts).toEqual(Array.from({ length: expected.bodies }, (_, index) => index + 1))
      }, 120_000)
    }
  }
})
