import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installTools,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { createQuickJsCodeRuntime, installCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { runStep } from '../adapters/run-step.ts'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Figure, Log } from '../types.ts'
import { measureNestedAgainstNative } from './code-mode-step.ts'
import { createDshRuntime } from './dsh-runtime.ts'

const SLEEP_MS = 20
/** Warm `run_code` calls measured per round. */
const WARM_PER_ROUND = 10

let next = 0
const runCodeInput = (code: string) => ({
  callId: `rc_${++next}`,
  name: RUN_CODE_TOOL_NAME,
  arguments: JSON.stringify({ code, description: 'bench' }),
})
const runCodeBlock = (id: string, code: string): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name: RUN_CODE_TOOL_NAME,
  arguments: JSON.stringify({ code, description: 'bench' }),
})

function returned(where: string, result: ToolExecutionResult, expected: unknown): void {
  const value = result.isError ? undefined : (result.value as { returned?: unknown } | undefined)?.returned
  if (JSON.stringify(value) !== JSON.stringify(expected)) {
    throw new Error(`code_mode ${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(result)}`)
  }
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now()
  await run()
  return performance.now() - start
}

const figure = (name: string, unit: string, values: readonly number[]): Figure => ({
  name,
  unit,
  stats: summarize(values),
})

/**
 * `code_mode`: what Code Mode costs, through the built packages. A cold start (a new QuickJS runtime:
 * its worker and engine, then the first `run_code`), a warm `run_code` beside the same program run on
 * the runtime alone (the transport's own cost), ten nested calls to a tool sleeping 20 ms run with
 * `Promise.all` against the same ten awaited one by one, and 100 nested calls in one `run_code` step
 * (each recorded as its own pair) against the native 100-call step, warm and side by side
 * (`measureNestedAgainstNative`).
 */
export async function runCodeModeCase(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const rounds = options.codeModeRounds

  // Cold start: a new runtime each round (a new worker), first run_code through the transport.
  const cold: number[] = []
  for (let round = 0; round < rounds; round++) {
    const root = createContext({ logger: silentLogger })
    installTools(root, { defaultPresentation: 'code', defaultTimeoutMs: false }) // as createDshRuntime
    installCodeMode(root)
    const dispose = installCodeRuntime(root)
    let result: ToolExecutionResult | undefined
    cold.push(await timed(async () => void (result = await root.tools.execute(runCodeInput('return 1')))))
    returned('cold start', result!, 1)
    dispose()
    log(`code_mode cold start ${round + 1}: ${cold.at(-1)!.toFixed(1)} ms`)
  }

  // Warm: one runtime, run_code through the pipeline against runtime.run of the same program.
  const runtime = createDshRuntime()
  runtime.agent.tools.presentAs('both')
  installCodeMode(runtime.root)
  const sandbox = createQuickJsCodeRuntime()
  runtime.root.provide('codeRuntime', sandbox)
  await sandbox.warmUp()
  runtime.root.tools.register(
    defineTool({
      name: 'sleep',
      description: `Sleep ${SLEEP_MS} ms`,
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async () => {
        await sleep(SLEEP_MS)
        return SLEEP_MS
      },
    }),
  )
  const tools = runtime.agent.tools
  for (let i = 0; i < 5; i++) returned('warm-up', await tools.execute(runCodeInput('return 1')), 1)
  const warm: number[] = []
  const bare: number[] = []
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < WARM_PER_ROUND; i++) {
      warm.push(await timed(async () => returned('warm', await tools.execute(runCodeInput('return 1')), 1)))
      bare.push(await timed(async () => void (await sandbox.run({ program: 'return 1' }))))
    }
  }

  // Ten nested sleeps: together (Promise.all) and one by one, each a recorded executeToolCalls step.
  const together =
    'const slept = await Promise.all(Array.from({ length: 10 }, () => tools.sleep())); return slept.length'
  const oneByOne = 'let n = 0; for (let i = 0; i < 10; i++) { await tools.sleep(); n++ } return n'
  let step = 0
  const stepOf = async (blocks: ToolCallBlock[]): Promise<ToolExecutionResult[]> => {
    runtime.loop.session = createMemorySession()
    const { results } = await runStep({
      ctx: runtime.agent,
      turn: 1,
      step: ++step,
      toolCalls: blocks,
      acceptContext: () => {},
    })
    return results
  }
  const parallel: number[] = []
  const serial: number[] = []
  for (let round = 0; round < rounds; round++) {
    let results: ToolExecutionResult[] = []
    parallel.push(
      await timed(async () => void (results = await stepOf([runCodeBlock(`p${round}`, together)]))),
    )
    returned('10 × sleep together', results[0]!, 10)
    if (runtime.loop.session.events().length !== 2 + 2 * 10)
      throw new Error('code_mode: the nested calls were not recorded')
    serial.push(await timed(async () => void (results = await stepOf([runCodeBlock(`s${round}`, oneByOne)]))))
    returned('10 × sleep one by one', results[0]!, 10)
    log(
      `code_mode 10 × ${SLEEP_MS} ms: together ${parallel.at(-1)!.toFixed(1)} ms, one by one ${serial.at(-1)!.toFixed(1)} ms`,
    )
  }

  // 100 nested calls in one run_code step against the native 100-call step, warm, equal work.
  const stepFigures = await measureNestedAgainstNative(
    options,
    async (blocks) => {
      const results = await stepOf(blocks)
      return { results, events: runtime.loop.session.events().length }
    },
    log,
  )
  sandbox.dispose()

  const ratio = (a: readonly number[], b: readonly number[]) => a.map((value, i) => value / b[i]!)
  return [
    {
      kind: 'figures',
      id: 'code_mode',
      label: `code_mode: QuickJS sandbox through run_code (${rounds} rounds; sleeps of ${SLEEP_MS} ms)`,
      figures: [
        figure('cold start: new runtime (worker + engine) and the first run_code', 'ms', cold),
        figure('warm run_code of `return 1` (ctx.tools.execute)', 'ms', warm),
        figure('the same program on runtime.run alone', 'ms', bare),
        figure(`10 nested calls sleeping ${SLEEP_MS} ms, Promise.all (one recorded step)`, 'ms', parallel),
        figure('the same 10 calls awaited one by one', 'ms', serial),
        figure('one by one ÷ Promise.all', '×', ratio(serial, parallel)),
        ...stepFigures,
      ],
    },
  ]
}
