import type { Stats } from '../types.ts'
import { figureStats, timedRow, type Row } from './analyze.ts'
import type { GoalCheck } from './goals.ts'
import { alignColumns, formatNumber, withSpread } from './table.ts'

const cell = (stats: Stats | null | undefined) =>
  stats === null || stats === undefined ? '—' : withSpread(stats)
const ratio = (after: number | undefined, before: number | undefined) =>
  after === undefined || before === undefined ? '—' : `${formatNumber(after / before)}×`

/**
 * Before (a baseline checkout's packages) and after (this checkout's), measured by the same cases in
 * the same run, each case's two processes back to back: CPU per call and bytes per call of every
 * timed case, every figure, and the goals on both sides.
 */
export function formatComparison(options: {
  readonly before: readonly Row[]
  readonly after: readonly Row[]
  readonly beforeGoals: readonly GoalCheck[]
  readonly afterGoals: readonly GoalCheck[]
  readonly beforeLabel: string
}): string {
  const { before, after, beforeGoals, afterGoals, beforeLabel } = options
  const timed: string[][] = [
    [
      'case',
      'calls/op',
      'CPU µs/call before',
      'CPU µs/call after',
      'after ÷ before',
      'B/call before',
      'B/call after',
    ],
  ]
  const figures: string[][] = [['case', 'figure', 'before', 'after', 'after ÷ before', 'unit']]
  for (const row of after) {
    if (row.kind === 'timed') {
      const id = row.result.id
      const was = timedRow(before, id)?.result
      timed.push([
        id,
        String(row.result.callsPerOp),
        cell(was?.cpuUsPerCall),
        cell(row.result.cpuUsPerCall),
        ratio(row.result.cpuUsPerCall.median, was?.cpuUsPerCall.median),
        was?.bytesPerCall ? formatNumber(was.bytesPerCall.median) : '—',
        row.result.bytesPerCall ? formatNumber(row.result.bytesPerCall.median) : '—',
      ])
    } else {
      for (const figure of row.result.figures) {
        const was = figureStats(before, row.result.id, figure.name)
        figures.push([
          row.result.id,
          figure.name,
          cell(was),
          cell(figure.stats),
          ratio(figure.stats.median, was?.median),
          figure.unit,
        ])
      }
    }
  }
  const goals: string[][] = [['', 'goal', 'before', 'after', 'after']]
  for (const goal of afterGoals) {
    const was = beforeGoals.find((candidate) => candidate.goal === goal.goal)
    goals.push([
      goal.status === 'met' ? '[x]' : '[ ]',
      goal.goal,
      was?.measured ?? '—',
      goal.measured,
      goal.status,
    ])
  }
  const section = (table: string[][]) => (table.length > 1 ? [...alignColumns(table), ''] : [])
  return [
    `before: ${beforeLabel}; after: this checkout (same cases, same run, each case's two processes back to back)`,
    '',
    ...section(timed),
    ...section(figures),
    'goals, before and after (raw CPU medians; [range the quartiles allow]):',
    ...alignColumns(goals),
  ].join('\n')
}
