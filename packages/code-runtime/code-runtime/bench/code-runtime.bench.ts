import { bench, describe } from 'vitest'
import { createQuickJsCodeRuntime, DEFAULT_CODE_RUN_LIMITS } from '@deepseek-ai/dsh-code-runtime'
import { createEngineLoader } from '../src/quickjs/create-engine-loader.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

describe('cold start: a new runtime and its first run (compile WebAssembly, instantiate, run)', () => {
  bench(
    'first run, JavaScript',
    async () => {
      const runtime = createQuickJsCodeRuntime()
      await runtime.run({ program: 'return 1', language: 'javascript' })
    },
    { iterations: 10, warmupIterations: 1 },
  )
})

describe('warm run of a trivial program', () => {
  const runtime = createQuickJsCodeRuntime()
  bench(
    'JavaScript',
    async () => {
      await runtime.run({ program: 'return 1 + 1', language: 'javascript' })
    },
    { warmupIterations: 20 },
  )
  bench(
    'TypeScript (types stripped by esbuild)',
    async () => {
      await runtime.run({ program: 'const n: number = 1; return n + 1' })
    },
    { warmupIterations: 20 },
  )
})

describe('10 bindings called concurrently via Promise.all, each sleeping 20 ms', () => {
  const runtime = createQuickJsCodeRuntime()
  const bindings = { sleep: async () => sleep(20) }
  bench(
    'Promise.all of 10 calls (about 20 ms if they overlap, 200 ms if not)',
    async () => {
      await runtime.run({
        program: 'await Promise.all(Array.from({ length: 10 }, () => tools.sleep()))',
        language: 'javascript',
        bindings,
      })
    },
    { iterations: 30, warmupIterations: 3 },
  )
  bench(
    'the same 10 calls awaited one after the other (the serial baseline)',
    async () => {
      await runtime.run({
        program: 'for (let i = 0; i < 10; i++) await tools.sleep()',
        language: 'javascript',
        bindings,
      })
    },
    { iterations: 10, warmupIterations: 1 },
  )
})

describe('engine cost per run, both ways: a reused context vs a fresh runtime and context', async () => {
  const loader = createEngineLoader()
  const engine = await loader.acquire(DEFAULT_CODE_RUN_LIMITS.memoryBytes)
  const runtime = engine.newRuntime()
  const reused = runtime.newContext()
  bench('evaluate in one reused context (leaks state: not used)', () => {
    reused.unwrapResult(reused.evalCode('1 + 1')).dispose()
  })
  bench('fresh QuickJS runtime + context per run (what run does on a pooled instance)', () => {
    const rt = engine.newRuntime()
    const vm = rt.newContext()
    vm.unwrapResult(vm.evalCode('1 + 1')).dispose()
    vm.dispose()
    rt.dispose()
  })
  bench(
    'fresh WebAssembly instance per run (what a run gets when the pool is empty)',
    async () => {
      const fresh = createEngineLoader()
      const instance = await fresh.acquire(DEFAULT_CODE_RUN_LIMITS.memoryBytes)
      const rt = instance.newRuntime()
      const vm = rt.newContext()
      vm.unwrapResult(vm.evalCode('1 + 1')).dispose()
      vm.dispose()
      rt.dispose()
    },
    { iterations: 30 },
  )
})
