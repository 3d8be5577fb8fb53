import { summarize } from '../harness/stats.ts'
import type { Figure, FiguresResult, ProcessReport, Stats, TimedResult } from '../types.ts'

/** A timed case with the floors of its own process and what it costs in multiples of them. */
export interface TimedRow {
  readonly kind: 'timed'
  readonly library: string
  readonly pid: number
  readonly result: TimedResult
  readonly floor: TimedResult
  readonly floorEnd: TimedResult | undefined
  /** The lower of the two floor CPU medians: the floor is fixed work, so interference only adds to it. */
  readonly floorCpu: number
  readonly floorWall: number
  /** Case CPU ÷ floor CPU, medians, same process. */
  readonly cpuVsFloor: number
  readonly wallVsFloor: number
  /**
   * Case CPU ÷ `dsh.execute` CPU, the raw medians of the two processes of this run. (It used to go
   * through each process's floor; a floor's median moved 2.8× between processes of one run, more
   * than the cases it was meant to correct, so it added noise instead of removing it.)
   */
  readonly cpuVsExecute: number | null
}

export interface FiguresRow {
  readonly kind: 'figures'
  readonly library: string
  readonly pid: number
  readonly result: FiguresResult
}

export type Row = TimedRow | FiguresRow

function byId(report: ProcessReport, id: string): TimedResult | undefined {
  const found = report.results.find((r) => r.id === id)
  return found?.kind === 'timed' ? found : undefined
}

/** One row per case, in run order, with its ratios. */
export function analyze(reports: readonly ProcessReport[]): Row[] {
  const rows: Row[] = []
  for (const report of reports) {
    const floor = byId(report, 'floor')
    const floorEnd = byId(report, 'floor.end')
    for (const result of report.results) {
      if (result.kind === 'figures')
        rows.push({ kind: 'figures', library: report.library, pid: report.pid, result })
      else if (result.kind === 'timed' && floor !== undefined && result !== floor && result !== floorEnd) {
        const floorCpu = Math.min(floor.cpuUsPerCall.median, floorEnd?.cpuUsPerCall.median ?? Infinity)
        const floorWall = Math.min(floor.wallUsPerCall.median, floorEnd?.wallUsPerCall.median ?? Infinity)
        rows.push({
          kind: 'timed',
          library: report.library,
          pid: report.pid,
          result,
          floor,
          floorEnd,
          floorCpu,
          floorWall,
          cpuVsFloor: result.cpuUsPerCall.median / floorCpu,
          wallVsFloor: result.wallUsPerCall.median / floorWall,
          cpuVsExecute: null,
        })
      }
    }
  }
  const appends = appendsPerSecond(rows)
  if (appends !== undefined) rows.push(appends)
  const execute = rows.find((row): row is TimedRow => row.kind === 'timed' && row.result.id === 'dsh.execute')
  if (execute === undefined) return rows
  return rows.map((row) =>
    row.kind === 'timed'
      ? { ...row, cpuVsExecute: row.result.cpuUsPerCall.median / execute.result.cpuUsPerCall.median }
      : row,
  )
}

/** `store`: appends per second of each store, from each round's wall time per append. */
function appendsPerSecond(rows: readonly Row[]): FiguresRow | undefined {
  const appends = rows.filter(
    (row): row is TimedRow => row.kind === 'timed' && row.result.id.startsWith('store.append.'),
  )
  if (appends.length === 0) return undefined
  const figures: Figure[] = appends.map((row) => ({
    name: `appends per second, ${row.result.id.slice('store.append.'.length)}`,
    unit: '/s',
    stats: summarize(row.result.samples.wallUsPerCall.map((us) => 1e6 / us)),
  }))
  return {
    kind: 'figures',
    library: 'dsh',
    pid: appends[0]!.pid,
    result: {
      kind: 'figures',
      id: 'store.appends-per-second',
      label: 'session appends per second (wall)',
      figures,
    },
  }
}

export function timedRow(rows: readonly Row[], id: string): TimedRow | undefined {
  return rows.find((row): row is TimedRow => row.kind === 'timed' && row.result.id === id)
}

export function figureStats(rows: readonly Row[], id: string, name: string): Stats | undefined {
  const row = rows.find((r): r is FiguresRow => r.kind === 'figures' && r.result.id === id)
  return row?.result.figures.find((figure) => figure.name === name)?.stats
}
