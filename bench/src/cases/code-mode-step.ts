import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, Figure, Log } from '../types.ts'
import { expectSums, stepBlocks } from './dsh-runtime.ts'

/** Nested calls of the program, and calls of the native step it is compared with. */
export const STEP_CALLS = 100

/** The program: 100 nested calls of `add` (async, returning `{ sum }`) together, as a model writes them. */
const NESTED_PROGRAM = `const sums = await Promise.all(Array.from({ length: ${STEP_CALLS} }, () => tools.add({ a: 1, b: 2 })))
return sums.length`
/** The same program without its calls: what a `run_code` step costs before its first nested call. */
const EMPTY_PROGRAM = `const sums = Array.from({ length: ${STEP_CALLS} }, () => ({ sum: 3 }))
return sums.length`

/** Runs one recorded `executeToolCalls` step (a fresh memory session) and returns its results. */
export type StepOf = (blocks: ToolCallBlock[]) => Promise<{
  readonly results: readonly ToolExecutionResult[]
  /** Events the step's session holds afterwards. */
  readonly events: number
}>

interface Side {
  readonly name: string
  run(): Promise<void>
}

interface Sample {
  /** Process CPU (every thread: the host, the sandbox worker, the type stripper, GC), µs per op. */
  readonly cpu: number
  /** Wall time, µs per op. */
  readonly wall: number
}

async function measure(side: Side, ops: number): Promise<Sample> {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < ops; i++) await side.run()
  const wall = ((performance.now() - start) * 1000) / ops
  const used = process.cpuUsage(cpuStart)
  return { cpu: (used.user + used.system) / ops, wall }
}

let block = 0
const runCodeBlock = (code: string): ToolCallBlock => ({
  type: 'tool-call',
  id: `rc_${++block}`,
  name: RUN_CODE_TOOL_NAME,
  arguments: JSON.stringify({ code, description: 'bench' }),
})

function returned(where: string, result: ToolExecutionResult | undefined, expected: number): void {
  const value = result?.isError === false ? (result.value as { returned?: unknown }).returned : undefined
  if (value !== expected)
    throw new Error(`code_mode ${where}: expected ${expected}, got ${JSON.stringify(result)}`)
}

/**
 * Code Mode against the native step on equal work, both warm: a `run_code` step whose program makes
 * 100 nested calls of `add`, each recorded as its own `tool/call` / `tool/result` pair, against an
 * `executeToolCalls` step of 100 `add` calls, both into a fresh memory session. Both sides warm up
 * first (as the timed cases do: at least `warmupMs` and `warmupCalls` calls each, at most
 * `warmupMaxMs`), then each round measures both, alternating which goes first, each side sized to
 * about `roundMs`. CPU is the whole process's (the sandbox worker and the type stripper are threads of
 * it), so the nested side pays for every thread it uses. A `run_code` step of the same program
 * without its calls shows what a run costs before its first call.
 */
export async function measureNestedAgainstNative(
  options: BenchOptions,
  stepOf: StepOf,
  log: Log,
): Promise<Figure[]> {
  const nested: Side = {
    name: 'nested',
    run: async () => {
      const { results, events } = await stepOf([runCodeBlock(NESTED_PROGRAM)])
      returned(`${STEP_CALLS} nested calls`, results[0], STEP_CALLS)
      if (events !== 2 + 2 * STEP_CALLS)
        throw new Error(`code_mode: ${events} events, not every call recorded`)
    },
  }
  let step = 0
  const native: Side = {
    name: 'native',
    run: async () => {
      const { results, events } = await stepOf(stepBlocks(++step, 'add', STEP_CALLS))
      expectSums('code_mode native step', results, STEP_CALLS)
      if (events !== 2 * STEP_CALLS)
        throw new Error(`code_mode native: ${events} events, not every call recorded`)
    },
  }
  const empty: Side = {
    name: 'empty',
    run: async () =>
      returned('program without calls', (await stepOf([runCodeBlock(EMPTY_PROGRAM)])).results[0], STEP_CALLS),
  }
  const sides = [nested, native, empty]

  // Warm-up, all sides in turn, until each has made warmupCalls calls and warmupMs have passed.
  const warmStart = performance.now()
  const msPerOp = new Map<Side, number>()
  for (let calls = 0; ; calls += STEP_CALLS) {
    for (const side of sides) msPerOp.set(side, (await measure(side, 1)).wall / 1000)
    const elapsed = performance.now() - warmStart
    if ((elapsed >= options.warmupMs && calls >= options.warmupCalls) || elapsed >= options.warmupMaxMs) break
  }
  const opsOf = (side: Side): number => Math.max(1, Math.round(options.roundMs / msPerOp.get(side)!))
  const ops = new Map(sides.map((side) => [side, opsOf(side)]))

  const samples = new Map<Side, Sample[]>(sides.map((side) => [side, []]))
  for (let round = 0; round < options.codeModeRounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse()
    for (const side of order) samples.get(side)!.push(await measure(side, ops.get(side)!))
    const [n, m] = [samples.get(nested)!.at(-1)!, samples.get(native)!.at(-1)!]
    log(
      `code_mode step of ${STEP_CALLS}: nested ${(n.cpu / STEP_CALLS).toFixed(1)} µs CPU/call, native ${(m.cpu / STEP_CALLS).toFixed(1)} µs CPU/call (${(n.cpu / m.cpu).toFixed(2)}×)`,
    )
  }

  const perCall = (side: Side, key: keyof Sample) =>
    samples.get(side)!.map((sample) => sample[key] / STEP_CALLS)
  const ratio = (key: keyof Sample) =>
    samples.get(nested)!.map((sample, i) => sample[key] / samples.get(native)![i]![key])
  const figure = (name: string, unit: string, values: readonly number[]): Figure => ({
    name,
    unit,
    stats: summarize(values),
  })
  return [
    figure(`${STEP_CALLS} nested calls in one run_code step, per call (CPU)`, 'µs', perCall(nested, 'cpu')),
    figure(`native ${STEP_CALLS}-call step, per call (CPU)`, 'µs', perCall(native, 'cpu')),
    figure(NESTED_RATIO_FIGURE, '×', ratio('cpu')),
    figure(`${STEP_CALLS} nested calls in one run_code step, per call (wall)`, 'µs', perCall(nested, 'wall')),
    figure(`native ${STEP_CALLS}-call step, per call (wall)`, 'µs', perCall(native, 'wall')),
    figure('nested ÷ native, per call (wall)', '×', ratio('wall')),
    figure(
      'run_code step of the same program without its calls (CPU)',
      'ms',
      samples.get(empty)!.map((sample) => sample.cpu / 1000),
    ),
  ]
}

/** The figure the Code Mode goal reads (report/goals.ts names it too). */
const NESTED_RATIO_FIGURE = 'nested ÷ native, per call (CPU)'
