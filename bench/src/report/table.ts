import type { PendingResult, Stats } from '../types.ts'
import type { Row } from './analyze.ts'
import type { GoalCheck } from './goals.ts'

/** At most 3 significant digits, thousands separated. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value)
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

export const withSpread = (stats: Stats) =>
  `${formatNumber(stats.median)} [${formatNumber(stats.p25)}–${formatNumber(stats.p75)}]`

/** Left-aligns the first two columns, right-aligns the rest. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows.map((row) =>
    row
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  )
}

export function formatReport(
  rows: readonly Row[],
  goals: readonly GoalCheck[],
  pending: readonly PendingResult[],
): string {
  const timed: string[][] = [
    [
      'library',
      'case',
      'calls/op',
      'CPU µs/call [p25–p75]',
      'wall µs/call [p25–p75]',
      'B/call',
      'floor CPU µs start/end',
      '×floor',
      '×execute',
    ],
  ]
  const figures: string[][] = [['case', 'figure', 'median [p25–p75]', 'unit']]
  for (const row of rows) {
    if (row.kind === 'timed') {
      const { result } = row
      timed.push([
        row.library,
        result.id,
        String(result.callsPerOp),
        withSpread(result.cpuUsPerCall),
        withSpread(result.wallUsPerCall),
        result.bytesPerCall === null ? '—' : formatNumber(result.bytesPerCall.median),
        `${formatNumber(row.floor.cpuUsPerCall.median)}/${row.floorEnd === undefined ? '—' : formatNumber(row.floorEnd.cpuUsPerCall.median)}`,
        formatNumber(row.cpuVsFloor),
        row.cpuVsExecute === null ? '—' : formatNumber(row.cpuVsExecute),
      ])
    } else {
      for (const figure of row.result.figures) {
        figures.push([row.result.id, figure.name, withSpread(figure.stats), figure.unit])
      }
    }
  }
  const section = (table: string[][]) => (table.length > 1 ? [...alignColumns(table), ''] : [])
  return [
    ...section(timed),
    ...section(figures),
    ...pending.map((p) => `pending, no figures: ${p.id} (${p.reason})`),
    '',
    'goals on this run’s medians (raw CPU medians; [range the quartiles allow]):',
    ...alignColumns(goals.map((g) => [g.status === 'met' ? '[x]' : '[ ]', g.goal, g.measured, g.status])),
  ].join('\n')
}
