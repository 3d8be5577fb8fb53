import { describe, expect, it } from 'vitest'
import { DEFAULT_CODE_RUN_LIMITS } from '@deepseek-ai/dsh-code-runtime'
import { compileWasm } from '../src/host/compile-wasm.ts'
import { locateWasm } from '../src/host/worker-files.ts'
import { createEngineLoader } from '../src/quickjs/create-engine-loader.ts'
import { runInSandbox } from '../src/quickjs/run-in-sandbox.ts'
import type { SandboxOutcome } from '../src/worker-protocol.ts'
import { wrapProgram } from '../src/wrap-program.ts'

const MIB = 1024 * 1024
const limits = { ...DEFAULT_CODE_RUN_LIMITS, memoryBytes: 16 * MIB }
const wasmModule = compileWasm(locateWasm(undefined))

// What a sandbox worker does for each run, driven here in-thread so the test can see the instance.
describe('a warmed engine instance is reused only without leaking state', () => {
  it('T34: a reused instance gives the next run a clean global, clean prototypes and no old values', async () => {
    const loader = createEngineLoader(await wasmModule)
    const instances: object[] = []
    const runOnce = async (program: string): Promise<SandboxOutcome> => {
      const engine = await loader.acquire(limits.memoryBytes)
      instances.push(engine)
      return runInSandbox({
        engine,
        source: wrapProgram(program),
        positions: true,
        names: [],
        limits,
        deadline: Date.now() + 10_000,
        ended: () => false,
        startCalls: () => undefined,
        log: () => undefined,
        release: (reusable) => loader.release(engine, reusable),
        memoryExhausted: () => loader.exhausted(engine),
        memoryCapped: () => loader.capped(engine),
      }).outcome
    }
    const first = await runOnce(`
      globalThis.secret = 'from run one'; var leaked = 1
      Object.prototype.polluted = true; Array.prototype.extra = () => 1; JSON.stringify = () => 'hijacked'
      Object.defineProperty(globalThis, 'sticky', { value: 1, configurable: false })
      globalThis.big = 'x'.repeat(1 << 20)
      return 'done'`)
    expect(first).toEqual({ kind: 'value', text: '"done"' })
    const second = await runOnce(`
      return [typeof secret, typeof leaked, typeof ({}).polluted, typeof [].extra,
        JSON.stringify({ a: 1 }), typeof sticky, typeof big, Object.keys(globalThis).length]`)
    expect(second).toEqual({
      kind: 'value',
      text: JSON.stringify([
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        '{"a":1}',
        'undefined',
        'undefined',
        0,
      ]),
    })
    // The proof is about reuse: both runs had the very same WebAssembly instance.
    expect(instances[1]).toBe(instances[0])
  })

  it('an instance whose run failed on memory is not reused, nor is one held by a run still going', async () => {
    const loader = createEngineLoader(await wasmModule)
    const a = await loader.acquire(limits.memoryBytes)
    const b = await loader.acquire(limits.memoryBytes)
    expect(b).not.toBe(a)
    loader.release(a, false)
    expect(await loader.acquire(limits.memoryBytes)).not.toBe(a)
    loader.release(b, true)
    expect(await loader.acquire(2 * limits.memoryBytes)).not.toBe(b)
    expect(await loader.acquire(limits.memoryBytes)).toBe(b)
  })
})

// The host's timer ends a run at its deadline too; this is the worker's own check, for a worker whose
// host is too busy to tell it (here the host is this very thread, blocked while the program runs).
describe('the sandbox keeps its own deadline', () => {
  it('T34: a busy program stops at the deadline the sandbox was given, with no word from the host', async () => {
    const loader = createEngineLoader(await wasmModule)
    const engine = await loader.acquire(limits.memoryBytes)
    const deadline = Date.now() + 200
    const outcome = await runInSandbox({
      engine,
      source: wrapProgram('for (;;) {}'),
      positions: true,
      names: [],
      limits,
      deadline,
      // The host's flag, raised long after the deadline: only a backstop, so a sandbox that ignored
      // its deadline ends as "ended by the host" instead of hanging this thread.
      ended: () => Date.now() > deadline + 5_000,
      startCalls: () => undefined,
      log: () => undefined,
      release: (reusable) => loader.release(engine, reusable),
      memoryExhausted: () => loader.exhausted(engine),
      memoryCapped: () => loader.capped(engine),
    }).outcome
    expect(outcome).toEqual({
      kind: 'timeout',
      message: `The program ran out of its time budget of ${limits.timeoutMs} ms (limits.timeoutMs)`,
    })
  })
})
