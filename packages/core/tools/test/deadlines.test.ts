import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import fc from 'fast-check'
import { createDeadlineQueue, type Deadline } from '../src/deadlines/deadline-queue.ts'
import { tsChildEnv } from '../../../../test-support/ts-child.ts'
import { call, setup, tool } from './fixtures.ts'

// The bodies' timeouts share one timer per runtime (T17, T47, T48): a deadline is linked into a
// queue instead of arming a timer per call. What must not change: a deadline never expires early
// nor late, a disarmed one never expires, a hung body keeps the process alive until its timeout and
// nothing keeps it alive once no call needs it.

const FAKE: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'],
}

function entry(id: number, expired: { id: number; at: number }[]): Deadline {
  return {
    deadlineAt: 0,
    deadlinePrev: undefined,
    deadlineNext: undefined,
    deadlineList: undefined,
    expire: () => void expired.push({ id, at: performance.now() }),
  }
}

type Op =
  | { readonly kind: 'arm'; readonly id: number; readonly ms: number }
  | { readonly kind: 'disarm'; readonly id: number }
  | { readonly kind: 'advance'; readonly ms: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('arm' as const),
    id: fc.integer({ min: 0, max: 7 }),
    ms: fc.constantFrom(0, 1, 2, 5, 30, 300, 300_000),
  }),
  fc.record({ kind: fc.constant('disarm' as const), id: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 3, 29, 300, 300_000) }),
)

describe('the deadline queue', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('T62: each armed deadline expires once, at the first moment its time has passed, never before, never after being disarmed or armed again', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        vi.useFakeTimers({ ...FAKE })
        try {
          const queue = createDeadlineQueue()
          const expired: { id: number; at: number }[] = []
          const entries = Array.from({ length: 8 }, (_, id) => entry(id, expired))
          // the model: when each armed entry is due (a timer fires 1 ms at the soonest)
          const due = new Map<number, number>()
          const expected: { id: number; at: number }[] = []
          let now = performance.now()
          const advance = (to: number): void => {
            // the model's expiries up to `to`, in time order (same time: order armed is kept)
            const hits = [...due].filter(([, at]) => at <= to).sort((a, b) => a[1] - b[1])
            for (const [id, at] of hits) {
              due.delete(id)
              expected.push({ id, at })
            }
          }
          for (const op of ops) {
            if (op.kind === 'arm') {
              queue.arm(entries[op.id]!, op.ms)
              due.delete(op.id)
              due.set(op.id, now + Math.max(1, op.ms))
            } else if (op.kind === 'disarm') {
              queue.disarm(entries[op.id]!)
              due.delete(op.id)
            } else {
              vi.advanceTimersByTime(op.ms)
              now += op.ms
              advance(now)
            }
          }
          const byTime = (a: { id: number; at: number }, b: { id: number; at: number }) =>
            a.at - b.at || a.id - b.id
          expect([...expired].sort(byTime)).toEqual([...expected].sort(byTime))
        } finally {
          vi.useRealTimers()
        }
      }),
      { numRuns: 300 },
    )
  })

  it('T62: the timer goes once nothing is armed, after the current microtasks; a deadline armed meanwhile keeps it', async () => {
    vi.useFakeTimers({ ...FAKE })
    const queue = createDeadlineQueue()
    const expired: { id: number; at: number }[] = []
    const [a, b] = [entry(0, expired), entry(1, expired)]
    queue.arm(a, 1_000)
    expect(vi.getTimerCount()).toBe(1)
    queue.disarm(a)
    queue.arm(b, 1_000) // the same microtask run: the timer stays, nothing new is set
    expect(vi.getTimerCount()).toBe(1)
    await Promise.resolve()
    await new Promise((resolve) => process.nextTick(resolve))
    expect(vi.getTimerCount()).toBe(1)
    queue.disarm(b)
    await new Promise((resolve) => process.nextTick(resolve))
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(5_000)
    expect(expired).toEqual([])
  })

  it('T62: fake timers installed after the timer was set are used from the next deadline on', () => {
    const queue = createDeadlineQueue()
    const expired: { id: number; at: number }[] = []
    queue.arm(entry(0, expired), 60_000) // on the real clock
    vi.useFakeTimers({ ...FAKE })
    queue.arm(entry(1, expired), 10)
    vi.advanceTimersByTime(10)
    expect(expired.map((e) => e.id)).toEqual([1])
    queue.disarm(entry(0, expired))
  })
})

describe('the bodies’ timeouts on one timer', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  for (const wrapped of [false, true]) {
    it(`T62/T47: back-to-back calls under the default timeout set one timer, not one each${wrapped ? ' (through the shipped wrapper)' : ''}`, async () => {
      vi.useFakeTimers({ ...FAKE })
      const set = vi.spyOn(globalThis, 'setTimeout')
      const { ctx } = setup()
      if (wrapped) ctx.on('tools/execute', (c, next) => next())
      ctx.tools.register({ ...tool('async'), execute: async () => 'later' })
      set.mockClear()
      for (let i = 0; i < 20; i++)
        expect(await ctx.tools.execute(call('async'))).toMatchObject({ isError: false, value: 'later' })
      // the deadlines' timer (with listeners the policy budget's sweeper sets one of its own)
      expect(set.mock.calls.filter(([, ms]) => ms === 300_000)).toHaveLength(1)
      // gone after the calls (the sweeper, unreferenced, ends once it finds no call left)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(vi.getTimerCount()).toBe(0)
    })
  }
})

/** Runs the timeout child; resolves with what it printed once it ended by itself. */
function runChild(mode: string, wrapped: boolean): Promise<{ stdout: string; code: number | null }> {
  const script = fileURLToPath(new URL('./fixtures/timeout-process.mjs', import.meta.url))
  const child = spawn(process.execPath, [script, mode, ...(wrapped ? ['wrapped'] : [])], {
    env: tsChildEnv(new URL('../package.json', import.meta.url)),
  })
  // a child the test gave up on must not outlive it
  onTestFinished(() => void child.kill('SIGKILL'))
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => (stderr === '' ? resolve({ stdout, code }) : reject(new Error(stderr))))
  })
}

// A guard against a hang, not a measurement: a child transpiles its TypeScript on a cold cache.
const CHILD_MS = 30_000

describe('what keeps a process alive (real processes, ending by themselves)', () => {
  for (const wrapped of [false, true]) {
    const how = wrapped ? ' (shipped wrapper)' : ''
    it(
      `T62/T17: a hung body keeps its process alive until its timeout, which then ends it${how}`,
      { timeout: CHILD_MS },
      async () => {
        expect(await runChild('hung', wrapped)).toEqual({ stdout: 'TIMEOUT\n', code: 0 })
      },
    )
    it(
      `T62/T47: after a fast call under the five-minute default nothing keeps the process alive${how}`,
      { timeout: CHILD_MS },
      async () => {
        // a timer left referenced would hold the child for five minutes: the test would time out
        expect(await runChild('fast', wrapped)).toEqual({ stdout: 'OK\n', code: 0 })
      },
    )
  }
  it(
    'T62/T47: with no timeout at all nothing keeps a hung body’s process alive (it ends without a result)',
    { timeout: CHILD_MS },
    async () => {
      expect(await runChild('hung-untimed', false)).toEqual({ stdout: '', code: 0 })
    },
  )
})
