import type { CallView } from '../progress/call-board.ts'

/** What the summary says about the calls one run of the demo saw. */
export interface CallSummary {
  readonly calls: number
  /** `ok` or the error code, with how many calls ended so; most frequent first. */
  readonly byOutcome: readonly (readonly [string, number])[]
  /** Most calls running at one moment. */
  readonly peakParallel: number
  /** Σ of the started calls' run times (start → settled): the cost of running them one by one. */
  readonly serialMs: number
  /** Σ over steps of first start → last commit: what they took as scheduled. */
  readonly wallMs: number
}

/**
 * Sums up calls from their recorded timings (the loop's `tool-call-*` events, `performance.now()`),
 * step by step: `serialMs - wallMs` is the time the pool saved against running the same calls one
 * after another with the same run times. Calls that never started add nothing to either.
 */
export function summarizeCalls(calls: readonly CallView[], peakParallel: number): CallSummary {
  const outcomes = new Map<string, number>()
  const steps = new Map<string, { first: number; last: number }>()
  let serialMs = 0
  for (const call of calls) {
    const outcome =
      call.result === undefined ? 'no result' : call.result.ok ? 'ok' : (call.result.code ?? 'error')
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
    if (!call.started || call.startedAt === undefined || call.timings === undefined) continue
    serialMs += call.timings.runMs
    const key = `${call.turn}.${call.step}`
    const end = call.committedAt ?? call.settledAt ?? call.startedAt
    const span = steps.get(key)
    if (span === undefined) steps.set(key, { first: call.startedAt, last: end })
    else {
      span.first = Math.min(span.first, call.startedAt)
      span.last = Math.max(span.last, end)
    }
  }
  let wallMs = 0
  for (const span of steps.values()) wallMs += span.last - span.first
  const byOutcome = [...outcomes].sort(
    (a, b) => b[1] - a[1] || (a[0] === 'ok' ? -1 : b[0] === 'ok' ? 1 : a[0].localeCompare(b[0])),
  )
  return { calls: calls.length, byOutcome, peakParallel, serialMs, wallMs }
}
