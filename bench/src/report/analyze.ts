import type { FiguresResult, ProcessReport, Stats, TimedResult } from '../types.ts'

/** A timed case with the floors of its own process and what it costs in multiples of them. */
export interface TimedRow {
  readonly kind: 'timed'
  readonly library: string
  readonly pid: number
  readonly result: TimedResult
  readonly floor: TimedResult
  readonly floorEnd: TimedResult | undefined
  /** Case CPU ÷ floor CPU, medians, same process. */
  readonly cpuVsFloor: number
  readonly wallVsFloor: number
  /**
   * (case ÷ its floor) ÷ (dsh execute ÷ its floor), on CPU medians: compares two processes through
   * their floors instead of assuming both ran on an equally busy machine.
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
        rows.push({
          kind: 'timed',
          library: report.library,
          pid: report.pid,
          result,
          floor,
          floorEnd,
          cpuVsFloor: result.cpuUsPerCall.median / floor.cpuUsPerCall.median,
          wallVsFloor: result.wallUsPerCall.median / floor.wallUsPerCall.median,
          cpuVsExecute: null,
        })
      }
    }
  }
  const execute = rows.find((row): row is TimedRow => row.kind === 'timed' && row.result.id === 'dsh.execute')
  if (execute === undefined) return rows
  return rows.map((row) =>
    row.kind === 'timed' ? { ...row, cpuVsExecute: row.cpuVsFloor / execute.cpuVsFloor } : row,
  )
}

export function timedRow(rows: readonly Row[], id: string): TimedRow | undefined {
  return rows.find((row): row is TimedRow => row.kind === 'timed' && row.result.id === id)
}

export function figureStats(rows: readonly Row[], id: string, name: string): Stats | undefined {
  const row = rows.find((r): r is FiguresRow => r.kind === 'figures' && r.result.id === id)
  return row?.result.figures.find((figure) => figure.name === name)?.stats
}
