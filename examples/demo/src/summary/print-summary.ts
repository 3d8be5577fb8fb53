import type { Colors } from 'picocolors/types'
import { formatDuration } from '../progress/format-duration.ts'
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

/** The closing lines: calls by outcome, peak parallelism, time saved, the session and its timeline. */
export function summaryLines(facts: SummaryFacts, colors: Colors): string[] {
  const { summary } = facts
  const outcomes = summary.byOutcome.map(([outcome, count]) => `${count} ${outcome}`).join(', ')
  const saved = summary.serialMs - summary.wallMs
  const lines = [
    colors.bold('Summary'),
    `  calls     ${summary.calls} in ${facts.turns} turn${facts.turns === 1 ? '' : 's'}${outcomes === '' ? '' : `: ${outcomes}`}`,
    `  parallel  up to ${summary.peakParallel} call${summary.peakParallel === 1 ? '' : 's'} at once (pool of ${facts.poolSize})`,
    `  time      ${formatDuration(summary.serialMs)} of tool time in ${formatDuration(summary.wallMs)}: ${saved >= 0 ? `${formatDuration(saved)} saved` : `${formatDuration(-saved)} lost`} against running the calls one after another`,
    `  session   ${facts.sessionPath}`,
    `  scratch   ${facts.scratch}`,
    `  timeline  ${facts.timeline}`,
  ]
  if (facts.resume !== undefined) lines.push(`  resume    ${facts.resume}`)
  return lines
}
