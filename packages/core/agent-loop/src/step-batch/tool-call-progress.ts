import type { Logger } from '@deepseek-ai/dsh-context'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { ToolCallRecordedTimings } from '@deepseek-ai/dsh-session'
import type { ExecutionMode, ToolExecutionResult, ToolProgress, ToolRuntime } from '@deepseek-ai/dsh-tools'
import { measureRecordedTimings, recordedTimingsFields } from './measure-recorded-timings.ts'
import type { StepCall, StepCalls } from './step-calls.ts'
import type { EagerDispatchFigures, ToolCallProgressEvent } from '../base/types.ts'

/** Turns scheduler hooks into `ToolCallProgressEvent`s with timings. */
export interface ToolCallProgress {
  queued(index: number): void
  /** The model's stream ended at `at` (calls queued or started later are not eager). */
  streamEnded(at: number): void
  /** The step's eager-dispatch figures, from the recorded timestamps (streamed steps only). */
  figures(): EagerDispatchFigures | undefined
  started(index: number, mode: ExecutionMode | undefined): void
  /** The body of `call` reported progress (`tools/progress`). */
  reported(call: StepCall, report: ToolProgress): void
  settled(index: number): void
  committed(index: number, result: ToolExecutionResult): void
  /**
   * What the session records with `call`'s result, measured up to now (its `tool/result` is being
   * appended): undefined for a call that never started. One object for the whole step, filled
   * again for the next call: read it before (`toolResultDataOf` does, synchronously).
   */
  recordedTimings(call: StepCall): ToolCallRecordedTimings | undefined
  /** Later hook calls (bodies an abort or failure left running) are dropped. */
  close(): void
  /**
   * Whether the step reads the clock at all (its results record timings, someone watches its
   * events, or it streams): when not, no call records timings, nested calls included.
   */
  readonly timed: boolean
}

function parsedArgs(raw: string): JsonObject {
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {}
  } catch {
    return {}
  }
}

export function createToolCallProgress(options: {
  readonly turn: number
  readonly step: number
  /** The step's calls: their blocks, and the moments this progress writes on them. */
  readonly calls: StepCalls
  readonly tools: ToolRuntime
  readonly logger: Logger
  /** Whoever watches the step's calls; undefined: nobody, so no event is built. */
  readonly onEvent: ((event: ToolCallProgressEvent) => void) | undefined
  /** The calls arrive while the model streams (until `streamEnded`). */
  readonly streaming: boolean
  /**
   * Read the clock even when nobody watches: the session records each result's `timings` (an
   * agent's turn always does). Without it the clock is read only for the events and eager figures.
   */
  readonly recordTimings: boolean
}): ToolCallProgress {
  const { turn, step, tools, logger, onEvent, streaming } = options
  const { list } = options.calls
  let queuedEarly = 0
  let startedEarly = 0
  let streamEndedAt: number | undefined
  let open = true
  // Timings feed the session's records, the events and the eager figures: a step that needs none
  // of them reads no clock. The events themselves are built only for a watcher.
  const timed = options.recordTimings || onEvent !== undefined || streaming
  /** What `recordedTimings` fills and hands out, call after call. */
  const recorded = recordedTimingsFields()
  const duringStream = (): boolean => streaming && streamEndedAt === undefined

  const emit = (event: ToolCallProgressEvent): void => {
    if (onEvent === undefined) return
    try {
      onEvent(event)
    } catch (error) {
      // A UI callback must not break the step: the session log is the record, events are a view.
      logger.error(`executeToolCalls: options.onEvent threw on "${event.type}"; the event was dropped`, {
        error,
      })
    }
  }
  const base = (call: StepCall, at: number) => {
    const { block, index } = call
    return { turn, step, index, callId: block.id, name: block.name, at }
  }

  return {
    timed,
    queued(index) {
      if (!open || !timed) return
      const at = performance.now()
      const call = list[index]!
      call.queuedAt = at
      const eager = duringStream()
      if (eager) queuedEarly++
      if (onEvent === undefined) return
      const { block } = call
      emit({
        type: 'tool-call-queued',
        ...base(call, at),
        label: tools.describeCall(block.name, parsedArgs(block.arguments)),
        eager,
      })
    },
    streamEnded(at) {
      streamEndedAt ??= at
    },
    started(index, mode) {
      if (!open || !timed || mode === undefined) return
      const at = performance.now()
      const call = list[index]!
      call.startedAt = at
      const early = duringStream()
      if (early) startedEarly++
      if (onEvent === undefined) return
      emit({
        type: 'tool-call-start',
        ...base(call, at),
        mode,
        queueMs: at - (call.queuedAt ?? at),
        duringStream: early,
      })
    },
    reported(call, report) {
      if (!open || onEvent === undefined) return
      const { progress, total, message } = report
      emit({ type: 'tool-call-progress', ...base(call, performance.now()), progress, total, message })
    },
    settled(index) {
      // After a scheduler failure a call may be answered before its body settles: keep end last.
      if (!open || !timed) return
      const call = list[index]!
      if (call.committedAt !== undefined) return
      const at = performance.now()
      call.settledAt = at
      if (onEvent === undefined) return
      emit({ type: 'tool-call-settled', ...base(call, at), runMs: at - (call.startedAt ?? at) })
    },
    committed(index, result) {
      if (!open || !timed) return
      const call = list[index]!
      const at = performance.now()
      call.committedAt = at
      if (onEvent === undefined) return
      const { queuedAt, startedAt: start } = call
      const settled = call.settledAt ?? start ?? at
      const timings =
        start === undefined
          ? { queueMs: at - (queuedAt ?? at), runMs: 0, commitMs: 0 }
          : { queueMs: start - (queuedAt ?? start), runMs: settled - start, commitMs: at - settled }
      const { block } = call
      const resultLabel = tools.describeResult(block.name, parsedArgs(block.arguments), result)
      emit({
        type: 'tool-call-end',
        ...base(call, at),
        result,
        resultLabel,
        started: start !== undefined,
        timings,
      })
    },
    recordedTimings(call) {
      if (call.startedAt === undefined) return undefined
      return measureRecordedTimings(call, performance.now(), recorded)
    },
    figures() {
      if (!streaming || streamEndedAt === undefined) return undefined
      const end = streamEndedAt
      let overlapMs = 0
      let longestRunMs = 0
      let lastCommitAt = end
      for (const call of list) {
        const commit = call.committedAt
        if (commit !== undefined) lastCommitAt = Math.max(lastCommitAt, commit)
        const start = call.startedAt
        if (start === undefined) continue
        const settled = call.settledAt ?? commit ?? start
        overlapMs += Math.max(0, Math.min(settled, end) - start)
        longestRunMs = Math.max(longestRunMs, settled - start)
      }
      return {
        streamEndedAt: end,
        queuedDuringStream: queuedEarly,
        startedDuringStream: startedEarly,
        overlapMs,
        savedMs: Math.max(0, end + longestRunMs - lastCommitAt),
      }
    },
    close() {
      open = false
    },
  }
}
