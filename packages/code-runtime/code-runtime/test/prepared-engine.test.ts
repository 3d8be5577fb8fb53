import { describe, expect, it } from 'vitest'
import { DEFAULT_CODE_RUN_LIMITS, type CodeRunLimits } from '@deepseek-ai/dsh-code-runtime'
import { answerEntry } from '../src/answer-entry.ts'
import { compileWasm } from '../src/host/compile-wasm.ts'
import { locateWasm } from '../src/host/worker-files.ts'
import { createEngineLoader, type EngineLoader } from '../src/quickjs/create-engine-loader.ts'
import type { PreparedEngine } from '../src/quickjs/prepared-engine.ts'
import { runInSandbox, type SandboxHandle } from '../src/quickjs/run-in-sandbox.ts'
import type { AnswerBatch, CallBatch, SandboxOutcome } from '../src/worker-protocol.ts'
import { wrapProgram } from '../src/wrap-program.ts'

const MIB = 1024 * 1024
const limits = { ...DEFAULT_CODE_RUN_LIMITS, memoryBytes: 16 * MIB }
const wasmModule = compileWasm(locateWasm(undefined))

interface InThread {
  readonly loader: EngineLoader
  readonly engines: PreparedEngine[]
  /** Runs a program as a sandbox worker would, in this thread; `answer` turns each batch of calls into answers. */
  run(
    program: string,
    options?: {
      readonly names?: readonly string[]
      readonly limits?: Partial<CodeRunLimits>
      readonly answer?: (batch: CallBatch) => AnswerBatch
    },
  ): Promise<SandboxOutcome>
}

async function inThread(): Promise<InThread> {
  const loader = createEngineLoader(await wasmModule)
  const engines: PreparedEngine[] = []
  return {
    loader,
    engines,
    async run(program, options = {}) {
      const runLimits = { ...limits, ...options.limits }
      const engine = await loader.acquire(runLimits.memoryBytes)
      engines.push(engine)
      const handle: SandboxHandle = runInSandbox({
        engine,
        release: (reusable) => loader.release(engine, reusable),
        memoryExhausted: () => loader.exhausted(engine),
        memoryCapped: () => loader.capped(engine),
        source: wrapProgram(program),
        positions: false,
        names: options.names ?? [],
        limits: runLimits,
        deadline: Date.now() + runLimits.timeoutMs,
        ended: () => false,
        startCalls: (batch) => {
          const answers = options.answer?.(batch)
          if (answers !== undefined) queueMicrotask(() => handle.answer(answers))
        },
        log: () => undefined,
      })
      return handle.outcome
    },
  }
}

describe('every run starts from the engine’s prepared state (T70)', () => {
  it('T70: after a run that polluted everything and was stopped in a loop by its deadline, the same instance runs the next program clean', async () => {
    const sandbox = await inThread()
    const stopped = await sandbox.run(
      `globalThis.secret = 'run one'; Object.prototype.polluted = true; Array.prototype.push = null
       JSON.parse = () => 'hijacked'; Object.defineProperty(globalThis, 'sticky', { value: 1, configurable: false })
       globalThis.big = 'x'.repeat(1 << 20); while (true) {}`,
      { limits: { timeoutMs: 100 } },
    )
    expect(stopped.kind).toBe('timeout')
    const next = await sandbox.run(
      `const list = []; list.push(1)
       return [typeof secret, typeof ({}).polluted, JSON.parse('[2]'), typeof sticky, typeof big, list, Object.keys(globalThis).length]`,
    )
    expect(next).toEqual({
      kind: 'value',
      text: JSON.stringify(['undefined', 'undefined', [2], 'undefined', 'undefined', [1], 0]),
    })
    // An interrupted run no longer retires its instance: the very same one served both runs.
    expect(sandbox.engines[1]).toBe(sandbox.engines[0])
  })

  it('T70: Math.random is seeded for each run: two runs on one instance draw different numbers, each in [0, 1)', async () => {
    const sandbox = await inThread()
    const draw = 'return Array.from({ length: 4 }, () => Math.random())'
    const first = await sandbox.run(draw)
    const second = await sandbox.run(draw)
    expect(sandbox.engines[1]).toBe(sandbox.engines[0])
    const numbers = [first, second].flatMap((outcome) =>
      outcome.kind === 'value' ? (JSON.parse(outcome.text!) as number[]) : [],
    )
    expect(numbers).toHaveLength(8)
    expect(new Set(numbers).size).toBe(8)
    for (const number of numbers) expect(number >= 0 && number < 1).toBe(true)
  })
})

describe('answers enter the sandbox in batches (T69)', () => {
  it('T69: a batch that cannot be parsed is settled answer by answer: the good ones resolve, the bad one rejects its call', async () => {
    const sandbox = await inThread()
    let batches = 0
    const outcome = await sandbox.run(
      `return await Promise.allSettled([tools.a(), tools.b(), tools.c()]).then((all) =>
         all.map((settled) => settled.status === 'fulfilled' ? settled.value : settled.reason.name))`,
      {
        names: ['a', 'b', 'c'],
        answer: ({ first, bindings }) => {
          batches++
          const indices = bindings.map((_, i) => first + i)
          // the host never sends an entry that is not JSON; the worker's fallback must cope anyway
          const entries = indices.map((index) =>
            index === 1 ? `${index},1,{not json}` : answerEntry(index, { ok: true, text: `"v${index}"` }),
          )
          return { indices, entries }
        },
      },
    )
    expect(batches).toBe(1)
    expect(outcome).toEqual({ kind: 'value', text: JSON.stringify(['v0', 'SyntaxError', 'v2']) })
  })

  it('T69: answers to calls that were never started, or already answered, are ignored', async () => {
    const sandbox = await inThread()
    const outcome = await sandbox.run('return [await tools.a(), await tools.a()]', {
      names: ['a'],
      answer: ({ first }) => ({
        indices: [first + 5, first, first],
        entries: [
          answerEntry(first + 5, { ok: true, text: '"never asked"' }),
          answerEntry(first, { ok: true, text: `"answer ${first}"` }),
          answerEntry(first, { ok: true, text: '"twice"' }),
        ],
      }),
    })
    expect(outcome).toEqual({ kind: 'value', text: JSON.stringify(['answer 0', 'answer 1']) })
  })
})
