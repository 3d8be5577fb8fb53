import { describeValue } from '@deepseek-ai/dsh-llm'
import { assignLanes } from './assign-lanes.ts'
import { collectToolCalls, type CollectedCall } from './collect-tool-calls.ts'
import { countPeakParallel, LOG_RESOLUTION_MS } from './count-peak-parallel.ts'
import { cutText } from './cut-text.ts'
import { argumentsText, lateOutcomeText, resultText } from './describe-content.ts'
import { TimelineError } from './errors.ts'
import { findSessionSubject } from './find-session-subject.ts'
import { inferModes } from './infer-modes.ts'
import type {
  CallStatus,
  Timeline,
  TimelineBarrier,
  TimelineCall,
  TimelineRow,
  TimelineStep,
  TimelineStepStats,
} from './types.ts'

export interface BuildTimelineOptions {
  /**
   * The page's title (the CLI's `--title`). Without one the page is named after the session's first
   * user message and `file`.
   */
  readonly title?: string
  /** The session file's name, shown with the title (the CLI passes it). */
  readonly file?: string
}

/** How long a bar of no duration holds its lane: less than anything a log can measure. */
const INSTANT_MS = 1e-6

const STATUSES: readonly CallStatus[] = ['ok', 'error', 'aborted', 'not-started', 'interrupted', 'no-result']

/**
 * Lays out a session's tool calls as a timeline: one panel per step, its calls on lanes where no two
 * bars overlap, the wait for the commit turn included (nested Code Mode calls on rows under their
 * parent's lane), exclusive calls as barriers, errors and aborts marked, previews of arguments and
 * results for tooltips.
 *
 * `events` is what a session holds (`session.events()`, `readJsonlSession(path).events`); it is
 * untrusted: malformed events are skipped and listed in `notes`, nothing in them can make this
 * throw. Facts the log does not record are inferred and flagged (`recorded`, `modeSource`).
 *
 * @example
 * const timeline = buildTimeline(readJsonlSession('run.jsonl').events, { title: 'run.jsonl' })
 * console.log(timeline.steps.map((step) => step.rows.length))
 */
export function buildTimeline(events: readonly unknown[], options: BuildTimelineOptions = {}): Timeline {
  const where = 'buildTimeline(events, options)'
  if (!Array.isArray(events))
    throw new TimelineError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: events must be an array of session events, got ${describeValue(events)}`,
    })
  if (typeof options !== 'object' || options === null)
    throw new TimelineError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options must be an object, got ${describeValue(options)}`,
    })
  const title: unknown = options.title
  if (title !== undefined && typeof title !== 'string')
    throw new TimelineError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.title must be a string, got ${describeValue(title)}`,
    })
  const file: unknown = options.file
  if (file !== undefined && typeof file !== 'string')
    throw new TimelineError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.file must be a string, got ${describeValue(file)}`,
    })

  const collected = collectToolCalls(events)
  const lastTime = collected.lastTime ?? 0
  const children = new Map<number, CollectedCall[]>()
  const stepsByKey = new Map<string, CollectedCall[]>()
  for (const call of collected.calls) {
    if (call.parentSeq !== undefined) {
      const siblings = children.get(call.parentSeq)
      if (siblings === undefined) children.set(call.parentSeq, [call])
      else siblings.push(call)
      continue
    }
    const key = `${call.turn}:${call.step}`
    const calls = stepsByKey.get(key)
    if (calls === undefined) stepsByKey.set(key, [call])
    else calls.push(call)
  }

  const steps = [...stepsByKey.values()].map((calls) =>
    layoutStep(calls, { children, lastTime, timings: collected.recorded.timings }),
  )
  const byStatus = zeroCounts()
  for (const step of steps) for (const call of step.calls) byStatus[call.status] += 1
  return {
    title,
    file,
    ...findSessionSubject(events),
    steps,
    totals: {
      events: events.length,
      steps: steps.length,
      calls: steps.reduce((sum, step) => sum + step.calls.length, 0),
      byStatus,
    },
    recorded: { ...collected.recorded },
    notes: collected.notes,
  }
}

interface StepContext {
  readonly children: ReadonlyMap<number, readonly CollectedCall[]>
  readonly lastTime: number
  readonly timings: boolean
}

function layoutStep(topLevel: readonly CollectedCall[], context: StepContext): TimelineStep {
  const first = topLevel[0]!
  const t0 = Math.min(...topLevel.map(startTime))
  const rows: TimelineRow[] = []
  const calls: TimelineCall[] = []
  const barriers: TimelineBarrier[] = []

  const layoutPool = (siblings: readonly CollectedCall[], depth: number): void => {
    const firstRow = rows.length
    const started = siblings.filter((call) => statusOf(call) !== 'not-started')
    const unstarted = siblings.filter((call) => statusOf(call) === 'not-started')
    const modes = inferModes(started)
    const spans = started.map((call) => span(call, t0, context.lastTime))
    // A lane holds a bar from its start to the end of all that is drawn of it (its wait for the
    // commit turn, a late outcome), so no later call is drawn over what an earlier one left. A bar
    // of no duration is still drawn a few pixels wide: it keeps its lane at its instant.
    const { lanes, count } = assignLanes(
      spans.map(({ start, drawnEnd }) => ({ start, end: Math.max(drawnEnd, start + INSTANT_MS) })),
    )
    // Such lanes are also pool slots when the claims (start to settled) need as many: then no lane
    // holds two claims at once and there are no more lanes than slots held at once (claims a log's
    // rounding shows overlapping by less than a millisecond were a slot handed on).
    const slots =
      lanesAreSlots(started, context.timings) && assignLanes(spans, LOG_RESOLUTION_MS).count === count
    const lane = slots ? 'slot' : 'lane'
    const pending: { call: CollectedCall; index: number }[] = []
    for (let slot = 0; slot < count; slot += 1) {
      const row = rows.length
      rows.push({
        kind: depth === 0 ? 'slot' : 'nested',
        slot: slot + 1,
        depth,
        label: `${depth === 0 ? '' : '↳ nested '}${lane} ${slot + 1}`,
      })
      const inLane: CollectedCall[] = []
      started.forEach((call, index) => {
        if (lanes[index] !== slot) return
        calls.push(toCall(call, { row, depth, t0, span: spans[index]!, mode: modes[index]! }))
        inLane.push(call)
        pending.push({ call, index })
      })
      const nested = inLane.flatMap((call) => context.children.get(call.seq) ?? [])
      if (nested.length > 0) layoutPool(nested, depth + 1)
    }
    if (unstarted.length > 0) {
      const row = rows.length
      rows.push({ kind: 'not-started', slot: 0, depth, label: `${depth === 0 ? '' : '↳ '}not started` })
      for (const call of unstarted) {
        const at = (call.result?.time ?? call.time) - t0
        calls.push(
          toCall(call, {
            row,
            depth,
            t0,
            span: { start: call.time - t0, end: at, settled: undefined, runEnd: at, drawnEnd: at },
            mode: { mode: undefined, source: undefined },
          }),
        )
      }
      // never seen in a real log (a call that did not start ran no program), but nothing is dropped
      const nested = unstarted.flatMap((call) => context.children.get(call.seq) ?? [])
      if (nested.length > 0) layoutPool(nested, depth + 1)
    }
    const lastRow = rows.length - 1
    for (const { index } of pending) {
      const mode = modes[index]!
      if (mode.mode !== 'exclusive' && mode.mode !== 'alone') continue
      const { start, end } = spans[index]!
      barriers.push({
        callSeq: started[index]!.seq,
        start,
        end,
        firstRow,
        lastRow,
        inferred: mode.source === 'inferred',
      })
    }
  }
  layoutPool(topLevel, 0)
  const placed = calls.sort((a, b) => a.seq - b.seq)
  barriers.sort((a, b) => a.start - b.start || a.callSeq - b.callSeq)
  const duration = Math.max(1, ...placed.map((call) => call.end))
  return {
    turn: first.turn,
    step: first.step,
    startTime: new Date(t0).toISOString(),
    startMs: t0,
    duration,
    rows,
    calls: placed,
    barriers,
    stats: stepStats(placed),
  }
}

interface Span {
  readonly start: number
  readonly end: number
  readonly settled: number | undefined
  /** End of the run shown solid: settled, else committed, else the end of the session. */
  readonly runEnd: number
  /** End of everything drawn of the call: its claim, its wait for the commit turn, a late outcome. */
  readonly drawnEnd: number
}

/**
 * When a call took its slot or its barrier turn. With recorded timings it is `runMs + commitMs`
 * before its `tool/result`: exact also for a call that started while the model still streamed,
 * whose `tool/call` was only appended after the message (T40). Without them, its `tool/call`'s time.
 */
function startTime(call: CollectedCall): number {
  const result = call.result
  if (result?.runMs === undefined || result.commitMs === undefined) return call.time
  return Math.min(call.time, result.time - result.commitMs - result.runMs)
}

function span(call: CollectedCall, t0: number, lastTime: number): Span {
  const start = startTime(call) - t0
  const runMs = call.result?.runMs
  const settled = runMs === undefined ? undefined : start + runMs
  const runEnd = Math.max(
    start,
    settled ?? (call.result === undefined ? lastTime - t0 : call.result.time - t0),
  )
  const end = Math.max(runEnd, call.late === undefined ? runEnd : call.late.time - t0)
  const drawnEnd = Math.max(end, call.result === undefined ? end : call.result.time - t0)
  return { start, end, settled, runEnd, drawnEnd }
}

/**
 * Whether a pool's lanes are its slots: only when claims end when bodies settled, i.e. every call the
 * pool committed recorded its `runMs` (commit times can need more lanes than slots). A call answered
 * by a resume or never answered says nothing either way. A log from a loop that timed a step's calls
 * but not yet their nested ones has slots in the step and lanes under a program.
 */
function lanesAreSlots(started: readonly CollectedCall[], sessionTimed: boolean): boolean {
  if (!sessionTimed) return false
  for (const call of started) {
    const status = statusOf(call)
    if ((status === 'ok' || status === 'error' || status === 'aborted') && call.result!.runMs === undefined)
      return false
  }
  return true
}

function statusOf(call: CollectedCall): CallStatus {
  const result = call.result
  if (result === undefined) return 'no-result'
  switch (result.error?.code) {
    case 'ABORTED_BEFORE_DISPATCH':
      return 'not-started'
    case 'ABORTED':
      return 'aborted'
    case 'INTERRUPTED':
      return 'interrupted'
    default:
      return result.isError ? 'error' : 'ok'
  }
}

function toCall(
  call: CollectedCall,
  placement: {
    readonly row: number
    readonly depth: number
    /** Epoch ms of the step's start. */
    readonly t0: number
    readonly span: Span
    readonly mode: { readonly mode: TimelineCall['mode']; readonly source: TimelineCall['modeSource'] }
  },
): TimelineCall {
  const { span: s, mode, t0 } = placement
  const result = call.result
  return {
    seq: call.seq,
    callId: call.callId,
    name: call.name,
    parentSeq: call.parentSeq,
    depth: placement.depth,
    row: placement.row,
    start: s.start,
    settled: s.settled,
    committed: result === undefined ? undefined : Math.max(s.start, result.time - t0),
    late: call.late === undefined ? undefined : Math.max(s.start, call.late.time - t0),
    end: s.end,
    mode: mode.mode,
    modeSource: mode.source,
    status: statusOf(call),
    error: result?.error,
    times: {
      call: call.iso,
      ...(result === undefined ? {} : { result: result.iso }),
      ...(call.late === undefined ? {} : { late: call.late.iso }),
    },
    arguments: cutText(argumentsText(call.arguments)),
    result: result === undefined ? undefined : cutText(resultText(result.content)),
    lateOutcome: call.late === undefined ? undefined : cutText(lateOutcomeText(call.late.outcome)),
  }
}

function zeroCounts(): Record<CallStatus, number> {
  return Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<CallStatus, number>
}

function stepStats(calls: readonly TimelineCall[]): TimelineStepStats {
  const byStatus = zeroCounts()
  for (const call of calls) byStatus[call.status] += 1
  const claims = calls
    .filter((call) => call.status !== 'not-started')
    .map((call) => ({
      depth: call.depth,
      start: call.start,
      end: call.settled ?? call.committed ?? call.end,
      nested: call.depth > 0,
    }))
  const peak = countPeakParallel(claims)
  // the serial cost and the wall time are the step's own calls: a program's run holds its nested ones
  const running = claims.filter((claim) => claim.depth === 0)
  const busyMs = running.reduce((sum, call) => sum + (call.end - call.start), 0)
  const wallMs =
    running.length === 0
      ? 0
      : Math.max(...running.map((call) => call.end)) - Math.min(...running.map((call) => call.start))
  return { calls: calls.length, byStatus, peakParallel: peak.peak, peakNested: peak.nested, busyMs, wallMs }
}
