import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestRuntime, expectHealthy, takeFaults } from './support.ts'

const MIB = 1024 * 1024

/**
 * Programs that leave QuickJS in a state its own teardown would reject: out of memory inside promise
 * jobs and async functions (the program never sees those failures), floods and bombs, interrupts in
 * the middle of built-ins. No run is torn down any more (the next one restores the prepared engine,
 * T70), so what these guard is that such a run never leaves a failed engine behind.
 */
const HOSTILE = [
  'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})',
  'const a = []; for (;;) { a.push(Promise.resolve(a.length)); await null }',
  'async function f(n) { await null; return f(n + 1) } await f(0)',
  'const ps = []; for (;;) ps.push(new Promise(() => {}).then(() => 1))',
  'let s = "x"; for (;;) s += s',
  'const a = []; for (;;) a.push({ x: [1, 2, 3] })',
  'const buffers = []; for (;;) buffers.push(new ArrayBuffer(1024 * 1024))',
  'for (;;) console.log("spam ".repeat(7))',
  'const a = Array.from({ length: 30000 }, (_, i) => (i * 7919) % 30011); for (;;) a.slice().sort((x, y) => x - y)',
  'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i, s: String(i) })',
  'let o = {}; for (;;) o = { o, p: new Proxy({}, {}) }',
  'const w = []; for (;;) w.push(new WeakRef({}), new FinalizationRegistry(() => {}))',
  'let x = []; for (;;) x = [x, JSON.parse(JSON.stringify({ a: [1, 2, { b: "c" }] }))]',
]

// One runtime: an engine fault of any run is recorded on it, and the next run must still work.
const runtime = createTestRuntime()
afterAll(() => runtime.dispose())

async function expectNoTeardownFault(program: string, timeoutMs: number, memoryMib: number): Promise<void> {
  const result = await runtime.run({ program, limits: { timeoutMs, memoryBytes: memoryMib * MIB } })
  expect(result.error?.kind, program).toMatch(/^(timeout|memory|output-limit|exception)$/)
  expect(takeFaults(runtime), `${program} (${timeoutMs} ms, ${memoryMib} MiB)`).toEqual([])
}

describe('a hostile run never leaves a failed engine behind (docs/spec.md T34, T70)', () => {
  // Each of these failed QuickJS's `list_empty(&rt->gc_obj_list)` assertion in JS_FreeRuntime
  // before instances that ran out of memory were retired instead of torn down.
  it('T34: an endless microtask chain that runs out of memory inside promise jobs (regression)', async () => {
    await expectNoTeardownFault(HOSTILE[0]!, 400, 8)
    await expectNoTeardownFault(HOSTILE[0]!, 1_200, 32)
    await expectHealthy(runtime)
  })

  it('T34: async recursion and a promise flood that run out of memory (regression)', async () => {
    await expectNoTeardownFault(HOSTILE[1]!, 1_200, 8)
    await expectNoTeardownFault(HOSTILE[2]!, 400, 8)
    await expectHealthy(runtime)
  })

  it('T34: an endless microtask chain out of memory ends with kind memory, not as a promise that never settles', async () => {
    const result = await runtime.run({
      program: HOSTILE[0]!,
      limits: { timeoutMs: 1_200, memoryBytes: 8 * MIB },
    })
    expect(result.error?.kind).toBe('memory')
    expect(takeFaults(runtime)).toEqual([])
  })

  it('T34: hostile programs under generated time and memory limits: the engine never fails, the next run works', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...HOSTILE),
        fc.integer({ min: 20, max: 450 }),
        fc.constantFrom(2, 4, 8, 16),
        async (program, timeoutMs, memoryMib) => {
          await expectNoTeardownFault(program, timeoutMs, memoryMib)
        },
      ),
      { numRuns: 30 },
    )
    await expectHealthy(runtime)
  }, 60_000)
})
