import { afterAll, describe, expect, it } from 'vitest'
import { createQuickJsCodeRuntime, type CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { deferred } from '../../../../test-support/deferred.ts'
import { TEST_LIMITS, errorOf, until } from './support.ts'

const runtimes: CodeRuntime[] = []
afterAll(() => runtimes.forEach((runtime) => runtime.dispose()))
const capped = (maxWorkers: number): CodeRuntime => {
  const runtime = createQuickJsCodeRuntime({ limits: { ...TEST_LIMITS, timeoutMs: 10_000 }, maxWorkers })
  runtimes.push(runtime)
  return runtime
}

/**
 * Run A waits (inside a binding) until run B has called its binding, or until A's own budget
 * (`aTimeoutMs`) runs out. With room for both they meet; with one worker B cannot start while A
 * holds it, so A ends by its deadline and B runs after it. The journal shows which (no duration is
 * asserted: the budget only bounds how long the capped case takes).
 */
async function meet(
  runtime: CodeRuntime,
  aTimeoutMs: number,
): Promise<{ journal: string[]; a: unknown; b: unknown }> {
  // a warm worker and transpiler: A's budget then goes to waiting, even on a loaded machine
  expect(await runtime.run({ program: 'return 0' })).toEqual({ value: 0, logs: [] })
  const journal: string[] = []
  const bStarted = deferred()
  const a = runtime
    .run({
      program: `return await tools.hold()`,
      limits: { timeoutMs: aTimeoutMs },
      bindings: {
        hold: (_args, call) => {
          journal.push('A holds')
          return new Promise((resolve, reject) => {
            void bStarted.promise.then(() => resolve('met'))
            call.signal.addEventListener('abort', () => reject(new Error('A ended')), { once: true })
          })
        },
      },
    })
    .then((result) => {
      journal.push('A ended')
      return result
    })
  await until(() => journal.includes('A holds'))
  const b = runtime.run({
    program: `return await tools.mark()`,
    bindings: {
      mark: () => {
        journal.push('B runs')
        bStarted.resolve()
        return 'b'
      },
    },
  })
  return { journal, a: await a, b: await b }
}

/** Starts a run that holds a worker until `release` resolves, once its binding was entered. */
async function holdTheWorker(runtime: CodeRuntime) {
  const release = deferred<string>()
  let holding = false
  const a = runtime.run({
    program: 'return await tools.hold()',
    bindings: {
      hold: () => {
        holding = true
        return release.promise
      },
    },
  })
  await until(() => holding)
  return { a, release, holding: () => holding }
}

describe('maxWorkers: a cap on sandbox workers, hence on overlapping runs', { timeout: 30_000 }, () => {
  it('T34: with room for two, two runs overlap', async () => {
    const { journal, a, b } = await meet(capped(2), 10_000)
    expect(journal).toEqual(['A holds', 'B runs', 'A ended'])
    expect(a).toEqual({ value: 'met', logs: [] })
    expect(b).toEqual({ value: 'b', logs: [] })
  })

  it('T34: with one worker, a second run waits until the first has ended, then runs', async () => {
    const { journal, a, b } = await meet(capped(1), 1_500)
    expect(journal).toEqual(['A holds', 'A ended', 'B runs'])
    expect(errorOf(a as never).kind).toBe('timeout')
    expect(b).toEqual({ value: 'b', logs: [] })
  })

  it('T34: a run waiting for a worker ends at once when aborted or out of time, and never runs; the queue moves on', async () => {
    const runtime = capped(1)
    const { a, release, holding } = await holdTheWorker(runtime)
    const ran: string[] = []
    const controller = new AbortController()
    const aborted = runtime.run({
      program: 'return await tools.never()',
      signal: controller.signal,
      bindings: { never: () => void ran.push('aborted run') },
    })
    const late = runtime.run({
      program: 'return await tools.never()',
      limits: { timeoutMs: 50 },
      bindings: { never: () => void ran.push('late run') },
    })
    const next = runtime.run({ program: 'return await tools.ok()', bindings: { ok: () => 'next' } })
    controller.abort()
    expect(errorOf(await aborted).kind).toBe('abort')
    expect(errorOf(await late).kind).toBe('timeout')
    // both ended while the only worker was still held by the first run
    expect(holding()).toBe(true)
    release.resolve('a')
    expect(await a).toEqual({ value: 'a', logs: [] })
    expect(await next).toEqual({ value: 'next', logs: [] })
    expect(ran).toEqual([])
  })

  it('T34: a run needing a worker with another heap cap gets one: an idle worker is ended to make room', async () => {
    const runtime = capped(1)
    expect(await runtime.run({ program: 'return 1' })).toEqual({ value: 1, logs: [] })
    // a larger valueBytes gives the worker a larger JavaScript heap cap: not the idle worker's
    const big = await runtime.run({ program: 'return 2', limits: { valueBytes: 32 * 1024 * 1024 } })
    expect(big).toEqual({ value: 2, logs: [] })
    expect(await runtime.run({ program: 'return 3' })).toEqual({ value: 3, logs: [] })
  })

  it('T34: disposing the runtime ends a waiting run with abort', async () => {
    const runtime = capped(1)
    const { a } = await holdTheWorker(runtime)
    const waiting = runtime.run({ program: 'return 1' })
    runtime.dispose()
    expect(errorOf(await waiting).kind).toBe('abort')
    expect(errorOf(await a).kind).toBe('abort')
  })
})
