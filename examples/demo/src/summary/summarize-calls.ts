import { approvalTime } from '../progress/approval-time.ts'
import type { CallView } from '../progress/call-board.ts'

/** What the summary says about the calls one run of the demo saw. */
export interface CallSummary {
  readonly calls: number
  /** `ok` or the error code, with how many calls ended so; most frequent first. */
  readonly byOutcome: readonly (readonly [string, number])[]
  /** Most calls running (start → settled) at one moment, a program's nested calls included. */
  readonly peakParallel: number
  /** How many of the `peakParallel` calls were nested calls of a program. */
  readonly peakNested: number
  /**
   * Σ of the started calls' run times (start → settled) less the time they waited for a person:
   * the cost of running them one by one.
   */
  readonly serialMs: number
  /** Σ over steps of first start → last commit, less the time calls waited for a person. */
  readonly wallMs: number
  /** Time the steps spent with a call waiting for a person's answer (left out of both figures above). */
  readonly approvalMs: number
}

/**
 * Sums up calls from their recorded timings (the loop's `tool-call-*` events, `performance.now()`),
 * step by step: `serialMs - wallMs` is the time the pool saved against running the same calls one
 * after another with the same run times. Calls that never started add nothing to either, and time
 * spent waiting for a person's approval is no one's run time: it is counted apart. `peak` is the
 * board's count of calls running at once (`CallBoard.peakParallel`), a program's nested calls included.
 */
export function summarizeCalls(
  calls: readonly CallView[],
  peak: { readonly parallel: number; readonly nested: number },
): CallSummary {
  const outcomes = new Map<string, number>()
  const steps = new Map<string, { first: number; last: number; waits: { from: number; to: number }[] }>()
  const stepOf = (turn: number, step: number, start: number) => {
    const key = `${turn}.${step}`
    let span = steps.get(key)
    if (span === undefined) steps.set(key, (span = { first: start, last: start, waits: [] }))
    return span
  }
  let serialMs = 0
  for (const call of calls) {
    const outcome =
      call.result === undefined ? 'no result' : call.result.ok ? 'ok' : (call.result.code ?? 'error')
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
    if (!call.started || call.startedAt === undefined || call.timings === undefined) continue
    const waited = approvalTime(call)
    serialMs += Math.max(0, call.timings.runMs - waited.own - waited.nested)
    const end = call.committedAt ?? call.settledAt ?? call.startedAt
    const span = stepOf(call.turn, call.step, call.startedAt)
    span.first = Math.min(span.first, call.startedAt)
    span.last = Math.max(span.last, end)
    for (const wait of call.approvalWaits)
      if (wait.to !== undefined) span.waits.push({ from: wait.from, to: wait.to })
  }
  let wallMs = 0
  let approvalMs = 0
  for (const step of steps.values()) {
    const waiting = unionLength(step.waits)
    wallMs += Math.max(0, step.last - step.first - waiting)
    approvalMs += waiting
  }
  const byOutcome = [...outcomes].sort(
    (a, b) => b[1] - a[1] || (a[0] === 'ok' ? -1 : b[0] === 'ok' ? 1 : a[0].localeCompare(b[0])),
  )
  return {
    calls: calls.length,
    byOutcome,
    peakParallel: peak.parallel,
    peakNested: peak.nested,
    serialMs,
    wallMs,
    approvalMs,
  }
}

/** The time covered by at least one of `intervals` (a program's waits can overlap its calls'). */
function unionLength(intervals: readonly { from: number; to: number }[]): number {
  let total = 0
  let end = Number.NEGATIVE_INFINITY
  for (const { from, to } of [...intervals].sort((a, b) => a.from - b.from)) {
    if (to <= end) continue
    total += to - Math.max(from, end)
    end = to
  }
  return total
}
