import type { Colors } from 'picocolors/types'
import { formatDuration } from '../progress/format-duration.ts'
import { wrapWords } from '../progress/wrap-words.ts'
import type { CallSummary } from './summarize-calls.ts'

export interface SummaryFacts {
  readonly summary: CallSummary
  readonly poolSize: number
  readonly turns: number
  readonly sessionPath: string
  readonly scratch: string
  readonly timeline: string
  /** The command that carries on, when the run was interrupted. */
  readonly resume: string | undefined
}

/**
 * The closing lines: calls by outcome, peak parallelism, time saved, the session and its timeline.
 * With `columns` (a terminal), the prose lines are wrapped at word boundaries under their value;
 * paths and commands stay on one line each, to be copied whole.
 */
export function summaryLines(facts: SummaryFacts, colors: Colors, columns?: number): string[] {
  const { summary } = facts
  const outcomes = summary.byOutcome.map(([outcome, count]) => `${count} ${outcome}`).join(', ')
  const saved = summary.serialMs - summary.wallMs
  const nested = summary.peakNested === 0 ? '' : `, ${summary.peakNested} of them nested in a program`
  const waited =
    summary.approvalMs <= 0 ? '' : `; ${formatDuration(summary.approvalMs)} waiting for approval left out`
  const prose = (text: string): string[] => wrapWords(text, columns, 12)
  const lines = [
    colors.bold('Summary'),
    ...prose(
      `  calls     ${summary.calls} in ${facts.turns} turn${facts.turns === 1 ? '' : 's'}${outcomes === '' ? '' : `: ${outcomes}`}`,
    ),
    ...prose(
      `  parallel  up to ${summary.peakParallel} call${summary.peakParallel === 1 ? '' : 's'} at once${nested} (pool of ${facts.poolSize})`,
    ),
    ...prose(
      `  time      ${formatDuration(summary.serialMs)} of tool time in ${formatDuration(summary.wallMs)}: ${saved >= 0 ? `${formatDuration(saved)} saved` : `${formatDuration(-saved)} lost`} against running the calls one after another${waited}`,
    ),
    `  session   ${facts.sessionPath}`,
    `  scratch   ${facts.scratch}`,
    `  timeline  ${facts.timeline}`,
  ]
  if (facts.resume !== undefined) lines.push(`  resume    ${facts.resume}`)
  return lines
}
