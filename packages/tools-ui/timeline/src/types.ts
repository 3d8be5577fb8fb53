/** How a call ended, as the timeline marks it. */
export type CallStatus =
  /** A result that is not an error. */
  | 'ok'
  /** An error result (`TOOL_FAILED`, `DENIED`, `TIMEOUT`, `INVALID_ARGUMENTS`, …). */
  | 'error'
  /** `ABORTED`: cancelled after it started. */
  | 'aborted'
  /** `ABORTED_BEFORE_DISPATCH`: an abort kept it from starting (T26); it held no slot. */
  | 'not-started'
  /** `INTERRUPTED`: the process stopped before its result; a resumed session answered it. */
  | 'interrupted'
  /** No `tool/result` in the log (the process died, or is still running it). */
  | 'no-result'

/**
 * How the call was scheduled. `exclusive` and `parallel` come from a recorded `mode`, or `parallel`
 * is inferred because the call overlapped another one. `alone` is inferred: without a recorded
 * mode, a call that nothing of its step overlapped is drawn as a barrier; it may have been an
 * exclusive call, or a parallel one that had the pool to itself.
 */
export type CallMode = 'exclusive' | 'parallel' | 'alone'

/** A text shown in a tooltip, already cut to a readable length. */
export interface TimelineText {
  readonly text: string
  /** Characters (code points) left out at the end; 0 when `text` is whole. */
  readonly omitted: number
}

/** One tool call. Times are milliseconds since the start of its step. */
export interface TimelineCall {
  /** Seq of its `tool/call` event. */
  readonly seq: number
  readonly callId: string
  readonly name: string
  /** Seq of the outer call when this is a nested (Code Mode) call. */
  readonly parentSeq: number | undefined
  /** 0 for a call of the step, 1 for a call nested in one, … */
  readonly depth: number
  /** Index into its step's `rows`. */
  readonly row: number
  /** When its `tool/call` was recorded: it took its slot (or turn) and its policy began. */
  readonly start: number
  /** When its body settled, when the session recorded it (`timings.runMs`); else `undefined`. */
  readonly settled: number | undefined
  /** When its `tool/result` was recorded (results commit in model order). */
  readonly committed: number | undefined
  /** When a body that outlived its result settled (`tool/late-outcome`). */
  readonly late: number | undefined
  /**
   * End of its claim on a slot or the barrier: the later of `settled` (or, when that is not
   * recorded, `committed`) and `late`; for a call without result, the session's last event.
   */
  readonly end: number
  readonly mode: CallMode | undefined
  /** Whether `mode` was recorded in the session or inferred from the order of events. */
  readonly modeSource: 'recorded' | 'inferred' | undefined
  readonly status: CallStatus
  readonly error: { readonly code: string; readonly name: string } | undefined
  /** ISO times of its events, as recorded. */
  readonly times: { readonly call: string; readonly result?: string; readonly late?: string }
  readonly arguments: TimelineText
  readonly result: TimelineText | undefined
  readonly lateOutcome: TimelineText | undefined
}

export type TimelineRowKind =
  /**
   * A lane of the step's calls: no two bars on it overlap, waits for the commit turn included. It is
   * one of the pool's slots when its label says `slot`, which holds when no wait needed a lane of
   * its own.
   */
  | 'slot'
  /** A lane of the nested calls of the program on the lane above it, labelled the same way. */
  | 'nested'
  /** Calls an abort kept from starting (they held no slot). */
  | 'not-started'

export interface TimelineRow {
  readonly kind: TimelineRowKind
  /** 1-based number within its pool. */
  readonly slot: number
  readonly depth: number
  readonly label: string
}

/** An exclusive call: nothing else of its pool ran from `start` to `end`. */
export interface TimelineBarrier {
  readonly callSeq: number
  readonly start: number
  readonly end: number
  /** Rows the barrier spans: the whole step, or a nested pool's rows. */
  readonly firstRow: number
  readonly lastRow: number
  /** True when the mode was not recorded and the barrier is inferred (drawn dashed). */
  readonly inferred: boolean
}

export interface TimelineStepStats {
  readonly calls: number
  readonly byStatus: Readonly<Record<CallStatus, number>>
  /**
   * Most calls running at one moment (start to settled), nested calls included: a program and the
   * calls it runs count each. Claims that overlap by less than the log's resolution (1 ms: its times
   * are whole milliseconds) count as one handing its slot to the next, not as running together.
   */
  readonly peakParallel: number
  /** How many of the `peakParallel` calls running at that moment were nested (Code Mode) calls. */
  readonly peakNested: number
  /** Sum of the step's calls' run times (to `settled`, else `committed`): the serial cost. */
  readonly busyMs: number
  /** From the first start to the last end. */
  readonly wallMs: number
}

export interface TimelineStep {
  readonly turn: number
  readonly step: number
  /** ISO time of the step's first `tool/call`. */
  readonly startTime: string
  /** Epoch milliseconds of `startTime`. */
  readonly startMs: number
  /** Length of the time axis, in ms (at least 1). */
  readonly duration: number
  readonly rows: readonly TimelineRow[]
  /** In seq order. */
  readonly calls: readonly TimelineCall[]
  /** In time order. */
  readonly barriers: readonly TimelineBarrier[]
  readonly stats: TimelineStepStats
}

export interface Timeline {
  /** The title given (`--title`); the page is otherwise named after `subject` and `file`. */
  readonly title: string | undefined
  /** The session file's name, when the timeline was built from a file. */
  readonly file: string | undefined
  /** What the session is about: the first line of its first user message, cut to 120 characters. */
  readonly subject: string | undefined
  /** ISO time of the session's first event. */
  readonly startTime: string | undefined
  readonly steps: readonly TimelineStep[]
  readonly totals: {
    readonly events: number
    readonly steps: number
    readonly calls: number
    readonly byStatus: Readonly<Record<CallStatus, number>>
  }
  /** Which optional facts the session recorded; without them the timeline infers and says so. */
  readonly recorded: { readonly mode: boolean; readonly timings: boolean }
  /** What could not be used (malformed events, results without a call), one line each. */
  readonly notes: readonly string[]
}
