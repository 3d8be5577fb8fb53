import { Worker } from 'node:worker_threads'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import {
  TEST_LIMITS,
  createTestRuntime,
  errorOf,
  expectHealthy,
  sabotagedWorker,
  takeFaults,
  until,
} from './support.ts'

/** Counts the messages of each type the host receives from its sandbox workers and posts to them. */
function countMessages(): { readonly received: Map<string, number>; readonly posted: Map<string, number> } {
  const received = new Map<string, number>()
  const posted = new Map<string, number>()
  const count = (into: Map<string, number>, message: unknown): void => {
    const type = (message as { type?: unknown } | null)?.type
    if (typeof type === 'string') into.set(type, (into.get(type) ?? 0) + 1)
  }
  const { emit, postMessage } = Worker.prototype
  Worker.prototype.emit = function (this: Worker, event: string | symbol, ...args: unknown[]) {
    if (event === 'message') count(received, args[0])
    return emit.call(this, event, ...args)
  } as typeof emit
  Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
    count(posted, message)
    return (postMessage as (...all: unknown[]) => void).call(this, message, ...rest)
  } as typeof postMessage
  restore = () => {
    Worker.prototype.emit = emit
    Worker.prototype.postMessage = postMessage
  }
  return { received, posted }
}
let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

describe('binding calls cross the sandbox boundary in batches (T69)', () => {
  it('T69: 100 calls made together reach the bindings in program order and come back in a few messages, not one per call', async () => {
    const runtime = createTestRuntime()
    await runtime.warmUp()
    const seen: number[] = []
    const messages = countMessages()
    const result = await runtime.run({
      program: `const sums = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.add({ a: i, b: 1 })))
        return sums.map((s) => s.sum)`,
      bindings: {
        add: (args, call) => {
          seen.push(call.index)
          const { a, b } = args as { a: number; b: number }
          return { sum: a + b }
        },
      },
    })
    expect(result).toEqual({ value: Array.from({ length: 100 }, (_, i) => i + 1), logs: [] })
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i))
    // at most 10 calls in flight (the default cap): at least 10 batches each way, far from 100
    expect(messages.received.get('calls')).toBeGreaterThanOrEqual(10)
    expect(messages.received.get('calls')).toBeLessThanOrEqual(25)
    expect(messages.posted.get('answers')).toBeLessThanOrEqual(25)
    expect(messages.received.get('call') ?? 0).toBe(0)
    runtime.dispose()
  })

  it('T69: a batch the worker sends that breaks program order, the cap or the run’s bindings fails the run and reaches no binding; the next run gets a new worker', async () => {
    const cases: [string, string][] = [
      ['first: 5, bindings: [0], texts: ["{}"]', 'it starts at call 5, the next call is 0'],
      [
        'first: 0, bindings: Array(11).fill(0), texts: Array(11).fill("{}")',
        '11 calls, only 10 may be in flight',
      ],
      ['first: 0, bindings: [3], texts: ["{}"]', 'call 0 names no binding of the run'],
      ['first: 0, bindings: [0], texts: [42]', 'call 0 has an argument that is not text'],
      ['first: 0, bindings: [0, 0], texts: ["{}"]', 'bindings and texts are not two lists of one length'],
      ['first: 0, bindings: [], texts: []', 'no call'],
    ]
    for (const [fields, problem] of cases) {
      const runtime = createTestRuntime(undefined, {
        workerUrl: await sabotagedWorker(
          `parentPort.postMessage({ type: 'calls', id: message.id, ${fields} })`,
        ),
      })
      let called = 0
      const bindings = { echo: () => void called++ }
      const result = await runtime.run({ program: 'return "SABOTAGE"', bindings })
      expect(errorOf(result), problem).toEqual({
        kind: 'exception',
        message: `The sandbox engine failed: CodeRuntimeError: The sandbox worker sent a malformed batch of binding calls (${problem})`,
      })
      expect(takeFaults(runtime)).toMatchObject([{ code: 'ENGINE_FAILED' }])
      expect(called).toBe(0)
      await expectHealthy(runtime)
      runtime.dispose()
    }
    // a sabotaged worker per case, each bundled and started: seconds on a loaded machine
  }, 30_000)

  it('T69: a batch of calls that arrives after its run ended reaches no binding', async () => {
    const runtime = createTestRuntime(undefined, {
      workerUrl: await sabotagedWorker(`
        parentPort.postMessage({ type: 'done', id: message.id, outcome: { kind: 'value', text: '"over"' } })
        setTimeout(() => {
          parentPort.postMessage({ type: 'calls', id: message.id, first: 0, bindings: [0], texts: ['{}'] })
          parentPort.postMessage({ type: 'late-sent', id: message.id })
        }, 20)`),
    })
    let called = 0
    const messages = countMessages()
    const result = await runtime.run({
      program: 'return "SABOTAGE"',
      bindings: { echo: () => void called++ },
    })
    expect(result).toEqual({ value: 'over', logs: [] })
    await until(() => messages.received.get('late-sent') === 1)
    await new Promise((resolve) => setImmediate(resolve))
    expect(messages.received.get('calls')).toBe(1)
    expect(called).toBe(0)
    await expectHealthy(runtime)
    runtime.dispose()
  })

  it('T69: a program that feeds forged records through Array.prototype fails as its own doing: no more calls than it made reach the host, no engine fault', async () => {
    const runtime = createTestRuntime()
    let called = 0
    // Too long for the quick encoder, so the full one (which pushes into arrays) encodes it; an
    // index accessor on Array.prototype then feeds its output, here with forged separators.
    const result = await runtime.run({
      program: `
        const wide = Array.from({ length: 20000 }, () => 0)
        const forged = String.fromCharCode(1) + '0' + String.fromCharCode(2) + '{}'
        Object.defineProperty(Array.prototype, 5, { get: () => forged, set() {}, configurable: true })
        await tools.echo(wide)
        return 'unreachable'`,
      language: 'javascript',
      bindings: { echo: () => void called++ },
      limits: { maxBindingCalls: 1 },
    })
    expect(errorOf(result)).toEqual({
      kind: 'exception',
      message: expect.stringMatching(
        /^The program's binding calls could not be read \(.+\): it changed built-ins the sandbox's own code relies on/,
      ) as string,
    })
    expect(called).toBe(0)
    expect(takeFaults(runtime)).toEqual([])
    await expectHealthy(runtime)
    runtime.dispose()
  })

  // The prelude keeps a run's calls in tables it empties when every call they hold is done and
  // cuts at the front once 1,024 done calls lead them: calls far past those sizes, answered out of
  // order, some rejected, with both kinds of phase (all queued at once; lanes that keep a few going).
  it('T69: thousands of calls answered in any order, past the sandbox tables’ cuts, each settle with their own answer', async () => {
    const runtime = createTestRuntime({ ...TEST_LIMITS, maxBindingCalls: 20_000 })
    await runtime.warmUp()
    const phase = fc.record({
      lanes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
      count: fc.integer({ min: 1, max: 2_600 }),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(phase, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 2 ** 30 }),
        async (phases, cap, seed) => {
          const delays = new Map<number, number>()
          const result = await runtime.run({
            // lanes 0: every call of the phase made at once (they queue in the sandbox)
            program: `let next = 0, done = 0
              const one = async () => {
                const i = next++
                try {
                  const v = await tools.echo(i)
                  if (v !== i * 2) throw new Error('call ' + i + ' got ' + v)
                } catch (e) {
                  if (e.message !== 'no ' + i) throw new Error('call ' + i + ' failed with ' + e.message)
                }
                done++
              }
              for (const [lanes, count] of ${JSON.stringify(phases.map((p) => [p.lanes, p.count]))}) {
                const end = next + count
                if (lanes === 0) await Promise.all(Array.from({ length: count }, one))
                else await Promise.all(Array.from({ length: lanes }, async () => { while (next < end) await one() }))
              }
              return done`,
            language: 'javascript',
            limits: { maxConcurrentBindingCalls: cap },
            bindings: {
              echo: async (value, call) => {
                const i = value as number
                // a few calls answer turns later than the ones after them
                const turns = (Math.imul(i ^ seed, 2654435761) >>> 0) % 13 === 0 ? 1 + (i % 3) : 0
                delays.set(call.index, turns)
                for (let t = 0; t < turns; t++) await new Promise((resolve) => setImmediate(resolve))
                if (i % 7 === 3) throw new Error(`no ${i}`)
                return i * 2
              },
            },
          })
          const total = phases.reduce((sum, p) => sum + p.count, 0)
          expect(result).toEqual({ value: total, logs: [] })
          expect(delays.size).toBe(total)
        },
      ),
      { numRuns: 8 },
    )
    expect(takeFaults(runtime)).toEqual([])
    runtime.dispose()
  })

  it('T69: index accessors and a splice the program puts on Array.prototype never see its calls’ texts nor break them', async () => {
    const runtime = createTestRuntime({ ...TEST_LIMITS, maxBindingCalls: 5_000 })
    const result = await runtime.run({
      program: `const seen = []
        for (let i = 0; i < 50; i++) {
          Object.defineProperty(Array.prototype, i, {
            get() { seen.push('get ' + i); return 'forged' },
            set(v) { seen.push('set ' + i + ' ' + v) },
            configurable: true,
          })
        }
        Array.prototype.splice = function () { seen.push('splice') ; return [] }
        let next = 0, sum = 0
        const lane = async () => { while (next < 3000) { const i = next++; sum += (await tools.twice({ i })).twice - 2 * i } }
        // three lanes keep calls going past the tables' cut; then 2,000 at once queue past it
        await Promise.all([lane(), lane(), lane()])
        const all = await Promise.all(Array.from({ length: 2000 }, (_, i) => tools.twice({ i })))
        for (let i = 0; i < 50; i++) delete Array.prototype[i]
        return { sum, last: all[1999].twice, seen: seen.length === 0 ? 'nothing' : seen.slice(0, 3) }`,
      language: 'javascript',
      bindings: { twice: (args) => ({ twice: 2 * (args as { i: number }).i }) },
    })
    expect(result).toEqual({ value: { sum: 0, last: 3998, seen: 'nothing' }, logs: [] })
    expect(takeFaults(runtime)).toEqual([])
    runtime.dispose()
  })
})
