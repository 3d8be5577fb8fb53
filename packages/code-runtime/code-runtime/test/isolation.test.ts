import { describe, expect, it } from 'vitest'
import { DEFAULT_CODE_RUN_LIMITS, type CodeRunResult } from '@deepseek-ai/dsh-code-runtime'
import { createEngineLoader } from '../src/quickjs/create-engine-loader.ts'
import { runInSandbox } from '../src/quickjs/run-in-sandbox.ts'
import { wrapProgram } from '../src/wrap-program.ts'

const MIB = 1024 * 1024
const limits = { ...DEFAULT_CODE_RUN_LIMITS, memoryBytes: 16 * MIB }

describe('a warmed engine instance is reused only without leaking state', () => {
  it('T34: a reused instance gives the next run a clean global, clean prototypes and no old values', async () => {
    const loader = createEngineLoader()
    const instances: object[] = []
    const runOnce = async (program: string): Promise<CodeRunResult> => {
      const engine = await loader.acquire(limits.memoryBytes)
      instances.push(engine)
      const wrapped = await wrapProgram(program, 'javascript')
      if (!wrapped.ok) throw new Error(wrapped.message)
      return runInSandbox({
        engine,
        source: wrapped.source,
        bindings: new Map(),
        limits,
        deadline: Date.now() + 10_000,
        signal: undefined,
        disposed: new AbortController().signal,
        release: (reusable) => loader.release(engine, reusable),
        memoryExhausted: () => loader.nearlyFull(engine),
      })
    }
    const first = await runOnce(`
      globalThis.secret = 'from run one'; var leaked = 1
      Object.prototype.polluted = true; Array.prototype.extra = () => 1; JSON.stringify = () => 'hijacked'
      Object.defineProperty(globalThis, 'sticky', { value: 1, configurable: false })
      globalThis.big = 'x'.repeat(1 << 20)
      return 'done'`)
    expect(first.value).toBe('done')
    const second = await runOnce(`
      return [typeof secret, typeof leaked, typeof ({}).polluted, typeof [].extra,
        JSON.stringify({ a: 1 }), typeof sticky, typeof big, Object.keys(globalThis).length]`)
    expect(second.value).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      '{"a":1}',
      'undefined',
      'undefined',
      0,
    ])
    // The proof is about reuse: both runs had the very same WebAssembly instance.
    expect(instances[1]).toBe(instances[0])
  })

  it('an instance whose run failed on memory is not reused, nor is one held by a run still going', async () => {
    const loader = createEngineLoader()
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
