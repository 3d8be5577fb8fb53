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
 * The goals of the step-path issue, on one run's medians. CPU time per call; "× execute" compares
 * cases of the dsh processes directly, and peers through their floors.
 */
export function checkGoals(rows: readonly Row[]): GoalCheck[] {
  const cpu = (id: string) => timedRow(rows, id)?.result.cpuUsPerCall.median
  const allocated = (id: string) => timedRow(rows, id)?.result.bytesPerCall?.median
  const execute = cpu('dsh.execute')
  const pool = figureStats(rows, 'pool_efficiency', 'rolling pool ÷ ideal')
  const batch = figureStats(rows, 'pool_efficiency', 'batch-by-batch ÷ ideal over its measured durations')
  const growth = (id: string) => figureStats(rows, id, 'heap growth per call after forced GC')?.median
  return [
    check('execute ≤ 3 µs CPU per call', execute, (v) => v <= 3, micros),
    check(
      'execute ≥ 10× cheaper than the AI SDK per validated call',
      timedRow(rows, 'ai-sdk.generateText.100')?.cpuVsExecute ?? undefined,
      (v) => v >= 10,
      times,
    ),
    {
      goal: 'execute ≥ 100× cheaper than upstream DSH',
      measured: 'upstream DSH is not in the suite',
      status: 'not measured',
    },
    check(
      '100-call step, memory session ≤ 1.5× execute per call',
      ratio(cpu('dsh.step.100.parallel.memory'), execute),
      (v) => v <= 1.5,
      times,
    ),
    check(
      "100-call step, JSONL session ('write') ≤ 3× execute per call",
      ratio(cpu('dsh.step.100.parallel.jsonl'), execute),
      (v) => v <= 3,
      times,
    ),
    check(
      'call with timeoutMs ≤ 1.3× a call without',
      ratio(cpu('dsh.execute.timeout'), execute),
      (v) => v <= 1.3,
      times,
    ),
    check(
      'call with timeoutMs ≤ 1.3× a call without, async body (the timer is armed)',
      ratio(cpu('dsh.execute.async.timeout'), cpu('dsh.execute.async')),
      (v) => v <= 1.3,
      times,
    ),
    check('memory-session append ≤ 2 µs', cpu('store.append.memory'), (v) => v <= 2, micros),
    check(
      'bytes allocated per call in a step ≤ 2× execute',
      ratio(allocated('dsh.step.100.parallel.memory'), allocated('dsh.execute')),
      (v) => v <= 2,
      times,
    ),
    check('pool makespan ≤ 1.02× the ideal in-order greedy pool', pool?.median, (v) => v <= 1.02, times),
    check(
      'pool measurably better than batch-by-batch (batch p25 above pool p75)',
      pool === undefined || batch === undefined ? undefined : batch.p25 - pool.p75,
      (v) => v > 0,
      (v) => `batch p25 − pool p75 = ${v.toFixed(3)}×`,
    ),
    check('heap growth < 10 B per call', growth('memory'), (v) => v < 10, bytes),
    check('heap growth < 10 B per call, tool with timeoutMs', growth('memory.timeout'), (v) => v < 10, bytes),
    check(
      'heap growth < 10 B per call, tool with timeoutMs, async body',
      growth('memory.timeout.async'),
      (v) => v < 10,
      bytes,
    ),
  ]
}
