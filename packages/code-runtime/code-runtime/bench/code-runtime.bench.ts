import { bench, describe } from 'vitest'
import {
  createQuickJsCodeRuntime,
  DEFAULT_CODE_RUN_LIMITS,
  type CodeBinding,
} from '@deepseek-ai/dsh-code-runtime'
import { answerEntry } from '../src/answer-entry.ts'
import { callBinding } from '../src/host/call-binding.ts'
import { compileWasm } from '../src/host/compile-wasm.ts'
import { locateWasm } from '../src/host/worker-files.ts'
import { createEngineLoader } from '../src/quickjs/create-engine-loader.ts'
import { PRELUDE_SOURCE } from '../src/quickjs/prelude-source.ts'
import { runInSandbox, type SandboxHandle } from '../src/quickjs/run-in-sandbox.ts'
import type { SandboxOutcome } from '../src/worker-protocol.ts'
import { wrapProgram } from '../src/wrap-program.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const limits = DEFAULT_CODE_RUN_LIMITS
const wasmModule = await compileWasm(locateWasm(undefined))

/**
 * The baseline: the same sandbox core driven on the host's own thread, as the backend did before
 * it moved into worker threads (no messages; bindings called directly; no hard time limit).
 */
function createInThreadRunner(): (
  program: string,
  bindings?: Record<string, CodeBinding>,
) => Promise<SandboxOutcome> {
  const loader = createEngineLoader(wasmModule)
  return async (program, bindings = {}) => {
    const engine = await loader.acquire(limits.memoryBytes)
    const ended = new AbortController()
    // Answers arrive on a later microtask, after `handle` is assigned.
    const handle: SandboxHandle = runInSandbox({
      engine,
      release: (reusable) => loader.release(engine, reusable),
      memoryExhausted: () => loader.exhausted(engine),
      memoryCapped: () => loader.capped(engine),
      source: wrapProgram(program),
      positions: true,
      names: Object.keys(bindings),
      limits,
      deadline: Date.now() + limits.timeoutMs,
      ended: () => false,
      startCalls: ({ first, bindings: positions, texts }) =>
        positions.forEach(
          (position, i) =>
            void callBinding({
              binding: bindings[Object.keys(bindings)[position]!]!,
              name: Object.keys(bindings)[position]!,
              index: first + i,
              text: texts[i],
              valueBytes: limits.valueBytes,
              signal: ended.signal,
            }).then((answer) =>
              handle.answer({ indices: [first + i], entries: [answerEntry(first + i, answer)] }),
            ),
        ),
      log: () => undefined,
    })
    const outcome = await handle.outcome
    ended.abort()
    return outcome
  }
}

describe('cold start: a new runtime and its first run', () => {
  bench(
    'worker: first run (compile WebAssembly, start a worker, instantiate, run)',
    async () => {
      const runtime = createQuickJsCodeRuntime()
      await runtime.run({ program: 'return 1', language: 'javascript' })
      runtime.dispose()
    },
    { iterations: 10, warmupIterations: 1 },
  )
  bench(
    'in-thread baseline: first run (compile WebAssembly, instantiate, run)',
    async () => {
      const loader = createEngineLoader(await compileWasm(locateWasm(undefined)))
      const engine = await loader.acquire(limits.memoryBytes)
      await runInSandbox({
        engine,
        release: () => undefined,
        memoryExhausted: () => false,
        memoryCapped: () => false,
        source: wrapProgram('return 1'),
        positions: true,
        names: [],
        limits,
        deadline: Date.now() + limits.timeoutMs,
        ended: () => false,
        startCalls: () => undefined,
        log: () => undefined,
      }).outcome
    },
    { iterations: 10, warmupIterations: 1 },
  )
})

describe('warm run of a trivial program (JavaScript)', async () => {
  const runtime = createQuickJsCodeRuntime()
  await runtime.warmUp()
  const inThread = createInThreadRunner()
  bench(
    'worker',
    async () => {
      await runtime.run({ program: 'return 1 + 1', language: 'javascript' })
    },
    { warmupIterations: 20 },
  )
  bench(
    'in-thread baseline',
    async () => {
      await inThread('return 1 + 1')
    },
    { warmupIterations: 20 },
  )
  bench(
    'worker, TypeScript (types stripped by swc in its own thread)',
    async () => {
      await runtime.run({ program: 'const n: number = 1; return n + 1' })
    },
    { warmupIterations: 20 },
  )
})

describe('10 bindings called concurrently via Promise.all, each sleeping 20 ms', async () => {
  const runtime = createQuickJsCodeRuntime()
  await runtime.warmUp()
  const inThread = createInThreadRunner()
  const bindings = { sleep: async () => sleep(20) }
  const concurrent = 'await Promise.all(Array.from({ length: 10 }, () => tools.sleep()))'
  bench(
    'worker: Promise.all of 10 calls (about 20 ms if they overlap, 200 ms if not)',
    async () => {
      await runtime.run({ program: concurrent, language: 'javascript', bindings })
    },
    { iterations: 30, warmupIterations: 3 },
  )
  bench(
    'in-thread baseline: the same Promise.all',
    async () => {
      await inThread(concurrent, bindings)
    },
    { iterations: 30, warmupIterations: 3 },
  )
  bench(
    'worker: the same 10 calls awaited one after the other (the serial baseline)',
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

describe('1 000 console.log lines (each one a message to the host)', async () => {
  const runtime = createQuickJsCodeRuntime()
  await runtime.warmUp()
  const inThread = createInThreadRunner()
  const program = 'for (let i = 0; i < 1000; i++) console.log("line", i)'
  bench('worker', async () => {
    await runtime.run({ program, language: 'javascript' })
  })
  bench('in-thread baseline', async () => {
    await inThread(program)
  })
})

describe('a new worker when the pool is empty (what the run after a terminated worker pays)', () => {
  bench(
    'start a worker and instantiate the engine in it (warmUp of a runtime whose WebAssembly is compiled)',
    async () => {
      const runtime = createQuickJsCodeRuntime()
      await runtime.warmUp()
      runtime.dispose()
    },
    { iterations: 10, warmupIterations: 1 },
  )
})

describe('engine cost per run inside a worker: the prepared state restored, against a fresh runtime and context with the prelude compiled', async () => {
  const loader = createEngineLoader(wasmModule)
  const engine = await loader.acquire(DEFAULT_CODE_RUN_LIMITS.memoryBytes)
  const idle = { interrupt: () => false, log: () => undefined, settle: () => undefined }
  bench('restore the prepared state (what a run does on a pooled instance)', () => {
    engine.begin(idle, DEFAULT_CODE_RUN_LIMITS.stackBytes)
    engine.vm.unwrapResult(engine.vm.evalCode('1 + 1')).dispose()
    engine.end()
  })
  bench('fresh QuickJS runtime + context, the prelude compiled (what a run did before)', () => {
    const rt = engine.instance.newRuntime()
    const vm = rt.newContext()
    vm.unwrapResult(vm.evalCode(PRELUDE_SOURCE, 'prelude.js')).dispose()
    vm.dispose()
    rt.dispose()
  })
  bench(
    'fresh WebAssembly instance, prepared (after an engine fault or exhausted memory)',
    async () => {
      await createEngineLoader(wasmModule).acquire(DEFAULT_CODE_RUN_LIMITS.memoryBytes)
    },
    { iterations: 30 },
  )
})
