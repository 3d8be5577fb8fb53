import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { forceMinorGc } from '../harness/gc.ts'
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

interface Window {
  /** Process CPU of the whole window (every thread: the host, the sandbox worker, the type stripper, GC), µs. */
  readonly cpu: number
  /** Wall time of the runs alone, µs per op. */
  readonly wall: number
  readonly ops: number
}

/**
 * One window of `ops` runs of a side. With `collect`, the window opens on a collected young
 * generation (what the side measured before left there is collected on no side's clock) and closes
 * with a young-generation collection inside it: each side pays for the short-lived garbage it made,
 * and no side for another's. A full collection (`gc()`) is not used: the runs after one cost two to
 * three times as much (measured: 22 against 6.5 µs per native call), which no running process sees.
 * Wall time covers the runs only.
 */
async function measure(side: Side, ops: number, collect: boolean): Promise<Window> {
  if (collect) forceMinorGc()
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < ops; i++) await side.run()
  const wall = ops === 0 ? 0 : ((performance.now() - start) * 1000) / ops
  if (collect) forceMinorGc()
  const used = process.cpuUsage(cpuStart)
  return { cpu: used.user + used.system, wall, ops }
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
 * `warmupMaxMs`), then `2 × codeModeRounds` rounds measure both, the order swapped every round, each
 * side's window sized to about `roundMs` and collected at both ends (`measure`); the per-order medians
 * show what one side's window still owes to the other. CPU is the whole process's (the sandbox worker
 * and the type stripper are threads of it), so the nested side pays for every thread it uses; a
 * window without work is subtracted. A `run_code` step of the same program without its calls shows
 * what a run costs before its first call.
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
  /** A window without work: its closing collection, nothing else. */
  const idle: Side = { name: 'idle', run: async () => {} }

  // Warm-up, all sides in turn, until each has made warmupCalls calls and warmupMs have passed.
  const warmStart = performance.now()
  const msPerOp = new Map<Side, number>()
  for (let calls = 0; ; calls += STEP_CALLS) {
    for (const side of sides) msPerOp.set(side, (await measure(side, 1, false)).wall / 1000)
    const elapsed = performance.now() - warmStart
    if ((elapsed >= options.warmupMs && calls >= options.warmupCalls) || elapsed >= options.warmupMaxMs) break
  }
  const opsOf = (side: Side): number => Math.max(1, Math.round(options.roundMs / msPerOp.get(side)!))
  const ops = new Map(sides.map((side) => [side, opsOf(side)]))

  // Rounds of a pair, nested and native, the order swapped every round (so each order has
  // codeModeRounds rounds, and each side follows itself in one order and the other side in the
  // other); then the program without its calls and windows without work, in rounds of their own.
  const windows = new Map<Side, Window[]>([...sides, idle].map((side) => [side, []]))
  const nestedFirst: boolean[] = []
  await measure(nested, ops.get(nested)!, true) // so that the first round's nested side follows nested too
  for (let round = 0; round < 2 * options.codeModeRounds; round++) {
    const first = round % 2 === 0
    nestedFirst.push(first)
    for (const side of first ? [nested, native] : [native, nested])
      windows.get(side)!.push(await measure(side, ops.get(side)!, true))
    const [n, m] = [windows.get(nested)!.at(-1)!, windows.get(native)!.at(-1)!]
    log(
      `code_mode step of ${STEP_CALLS} (${first ? 'nested' : 'native'} first): window CPU nested ${(n.cpu / n.ops / STEP_CALLS).toFixed(1)} µs/call, native ${(m.cpu / m.ops / STEP_CALLS).toFixed(1)} µs/call`,
    )
  }
  for (let round = 0; round < options.codeModeRounds; round++) {
    windows.get(empty)!.push(await measure(empty, ops.get(empty)!, true))
    windows.get(idle)!.push(await measure(idle, 0, true))
  }

  // A window's own CPU: what it measured less what a window without work measures (its closing
  // collection of an empty young generation), the median of those windows.
  const idleCpu = summarize(windows.get(idle)!.map((window) => window.cpu)).median
  const perOp = (side: Side, key: 'cpu' | 'wall'): number[] =>
    windows.get(side)!.map((window) => (key === 'wall' ? window.wall : (window.cpu - idleCpu) / window.ops))
  const perCall = (side: Side, key: 'cpu' | 'wall') => perOp(side, key).map((value) => value / STEP_CALLS)
  const ratio = (key: 'cpu' | 'wall') => {
    const base = perOp(native, key)
    return perOp(nested, key).map((value, i) => value / base[i]!)
  }
  const inOrder = (values: readonly number[], first: boolean) =>
    values.filter((_, i) => nestedFirst[i] === first)
  const figure = (name: string, unit: string, values: readonly number[]): Figure => ({
    name,
    unit,
    stats: summarize(values),
  })
  const cpuRatio = ratio('cpu')
  // Each side in its own steady state: the nested window right after a nested one (a round measuring
  // nested first) against the native window right after a native one (the next round's first).
  const steady: number[] = []
  for (let round = 0; round + 1 < nestedFirst.length; round += 2)
    steady.push(perOp(nested, 'cpu')[round]! / perOp(native, 'cpu')[round + 1]!)
  const nestedCpu = perCall(nested, 'cpu')
  const nativeCpu = perCall(native, 'cpu')
  return [
    figure(`${STEP_CALLS} nested calls in one run_code step, per call (CPU)`, 'µs', nestedCpu),
    figure(`native ${STEP_CALLS}-call step, per call (CPU)`, 'µs', nativeCpu),
    figure(NESTED_RATIO_FIGURE, '×', steady),
    figure('nested ÷ native (CPU), each window of a round, both orders', '×', cpuRatio),
    figure('nested ÷ native (CPU), rounds measuring nested first', '×', inOrder(cpuRatio, true)),
    figure('nested ÷ native (CPU), rounds measuring native first', '×', inOrder(cpuRatio, false)),
    figure('nested per call (CPU), measured right after nested', 'µs', inOrder(nestedCpu, true)),
    figure('nested per call (CPU), measured right after native', 'µs', inOrder(nestedCpu, false)),
    figure('native per call (CPU), measured right after native', 'µs', inOrder(nativeCpu, false)),
    figure('native per call (CPU), measured right after nested', 'µs', inOrder(nativeCpu, true)),
    figure(`${STEP_CALLS} nested calls in one run_code step, per call (wall)`, 'µs', perCall(nested, 'wall')),
    figure(`native ${STEP_CALLS}-call step, per call (wall)`, 'µs', perCall(native, 'wall')),
    figure('nested ÷ native, per call (wall)', '×', ratio('wall')),
    figure(
      'run_code step of the same program without its calls (CPU)',
      'ms',
      perOp(empty, 'cpu').map((cpu) => cpu / 1000),
    ),
    figure(
      'a window without work: its closing collection (CPU, subtracted from each window)',
      'ms',
      windows.get(idle)!.map((window) => window.cpu / 1000),
    ),
  ]
}

/** The figure the Code Mode goal reads (report/goals.ts names it too). */
const NESTED_RATIO_FIGURE = 'nested ÷ native, per call (CPU)'
