import { figureStats, timedRow, type Row } from './analyze.ts'

export interface GoalCheck {
  readonly goal: string
  readonly measured: string
  readonly status: 'met' | 'missed' | 'not measured'
}

const times = (value: number) => `${value.toFixed(2)}×`
const micros = (value: number) => `${value.toFixed(2)} µs`
const bytes = (value: number) => `${value.toFixed(2)} B`

function check(
  goal: string,
  value: number | undefined,
  ok: (v: number) => boolean,
  show: (v: number) => string,
): GoalCheck {
  if (value === undefined || !Number.isFinite(value)) return { goal, measured: '—', status: 'not measured' }
  return { goal, measured: show(value), status: ok(value) ? 'met' : 'missed' }
}

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a / b

/**
 * The goals, on one run's medians, each comparing equal work. CPU time per call. Between dsh cases
 * (all dsh processes of the same run) the goals divide CPU medians directly; a peer is compared
 * through both processes' floors (`cpuVsFloor`), never a bare `execute` against a peer's whole step.
 */
export function checkGoals(rows: readonly Row[]): GoalCheck[] {
  const cpu = (id: string) => timedRow(rows, id)?.result.cpuUsPerCall.median
  const vsFloor = (id: string) => timedRow(rows, id)?.cpuVsFloor
  const allocated = (id: string) => timedRow(rows, id)?.result.bytesPerCall?.median
  const execute = cpu('dsh.execute')
  const pool = figureStats(rows, 'pool_efficiency', 'rolling pool ÷ ideal')
  const batch = figureStats(rows, 'pool_efficiency', 'batch-by-batch ÷ ideal over its measured durations')
  const growth = (id: string) => figureStats(rows, id, 'heap growth per call after forced GC')?.median
  return [
    check('execute ≤ 3 µs CPU per call', execute, (v) => v <= 3, micros),
    check(
      "100-call step ≥ 4× cheaper than the AI SDK's step of 100 calls (equal work)",
      ratio(vsFloor('ai-sdk.generateText.100'), vsFloor('dsh.step.100.parallel.memory')),
      (v) => v >= 4,
      times,
    ),
    check(
      "a turn of 100 calls cheaper than the AI SDK's turn (equal work; the ratio is theirs ÷ ours)",
      ratio(vsFloor('ai-sdk.turn.100'), vsFloor('dsh.turn.100')),
      (v) => v > 1,
      times,
    ),
    check(
      "10 turns in one conversation cheaper than the AI SDK's (equal work; theirs ÷ ours)",
      ratio(vsFloor('ai-sdk.conversation.10'), vsFloor('dsh.conversation.10')),
      (v) => v > 1,
      times,
    ),
    {
      goal: 'execute ≥ 100× cheaper than upstream DSH',
      measured: 'upstream DSH is not in the suite',
      status: 'not measured',
    },
    check(
      '100-call step, memory session ≤ 2× execute per call',
      ratio(cpu('dsh.step.100.parallel.memory'), execute),
      (v) => v <= 2,
      times,
    ),
    check(
      "100-call step, JSONL session ('write') ≤ 3× execute per call",
      ratio(cpu('dsh.step.100.parallel.jsonl'), execute),
      (v) => v <= 3,
      times,
    ),
    check(
      'a turn with 1,000 tools ≤ 1.5× the per-call cost of a turn with 10',
      ratio(cpu('dsh.turn.10.tools.1000'), cpu('dsh.turn.10.tools.10')),
      (v) => v <= 1.5,
      times,
    ),
    check(
      'call with timeoutMs (the timer armed and cleared) ≤ 1.3× a call without',
      ratio(cpu('dsh.execute.timeout'), execute),
      (v) => v <= 1.3,
      times,
    ),
    check(
      'a Code Mode nested call ≤ 4× a native call in a warm step (CPU, 100 calls each, equal work)',
      figureStats(rows, 'code_mode', 'nested ÷ native, per call (CPU)')?.median,
      (v) => v <= 4,
      times,
    ),
    check('memory-session append ≤ 2 µs', cpu('store.append.memory'), (v) => v <= 2, micros),
    check(
      'bytes allocated per call in a step ≤ 2× execute',
      ratio(allocated('dsh.step.100.parallel.memory'), allocated('dsh.execute')),
      (v) => v <= 2,
      times,
    ),
    check('pool makespan ≤ 1.05× the ideal in-order greedy pool', pool?.median, (v) => v <= 1.05, times),
    check(
      'pool measurably better than batch-by-batch (batch p25 above pool p75)',
      pool === undefined || batch === undefined ? undefined : batch.p25 - pool.p75,
      (v) => v > 0,
      (v) => `batch p25 − pool p75 = ${v.toFixed(3)}×`,
    ),
    check('heap growth < 10 B per call', growth('memory'), (v) => v < 10, bytes),
    check(
      'heap growth < 10 B per call, tool with timeoutMs (timer armed)',
      growth('memory.timeout'),
      (v) => v < 10,
      bytes,
    ),
  ]
}
