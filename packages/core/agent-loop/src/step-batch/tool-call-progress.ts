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

/** What `createToolCallProgress` is given. */
export interface ToolCallProgressOptions {
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
}

/**
 * The progress of one step as a class: methods made once, not closures made for each step, which
 * lose their optimized code when a full collection finds no step alive (the Code Mode order
 * effect, bench/README).
 */
class StepProgress implements ToolCallProgress {
  readonly timed: boolean
  private readonly turn: number
  private readonly step: number
  private readonly list: readonly StepCall[]
  private readonly tools: ToolRuntime
  private readonly logger: Logger
  private readonly onEvent: ((event: ToolCallProgressEvent) => void) | undefined
  private readonly streaming: boolean
  private queuedEarly = 0
  private startedEarly = 0
  private streamEndedAt: number | undefined = undefined
  private open = true
  /** What `recordedTimings` fills and hands out, call after call. */
  private readonly recorded = recordedTimingsFields()

  constructor(options: ToolCallProgressOptions) {
    this.turn = options.turn
    this.step = options.step
    this.list = options.calls.list
    this.tools = options.tools
    this.logger = options.logger
    this.onEvent = options.onEvent
    this.streaming = options.streaming
    // Timings feed the session's records, the events and the eager figures: a step that needs none
    // of them reads no clock. The events themselves are built only for a watcher.
    this.timed = options.recordTimings || options.onEvent !== undefined || options.streaming
  }

  private duringStream(): boolean {
    return this.streaming && this.streamEndedAt === undefined
  }

  private emit(event: ToolCallProgressEvent): void {
    const { onEvent } = this
    if (onEvent === undefined) return
    try {
      onEvent(event)
    } catch (error) {
      // A UI callback must not break the step: the session log is the record, events are a view.
      this.logger.error(`executeToolCalls: options.onEvent threw on "${event.type}"; the event was dropped`, {
        error,
      })
    }
  }

  private base(call: StepCall, at: number) {
    const { block, index } = call
    return { turn: this.turn, step: this.step, index, callId: block.id, name: block.name, at }
  }

  queued(index: number): void {
    if (!this.open || !this.timed) return
    const at = performance.now()
    const call = this.list[index]!
    call.queuedAt = at
    const eager = this.duringStream()
    if (eager) this.queuedEarly++
    if (this.onEvent === undefined) return
    const { block } = call
    this.emit({
      type: 'tool-call-queued',
      ...this.base(call, at),
      label: this.tools.describeCall(block.name, parsedArgs(block.arguments)),
      eager,
    })
  }

  streamEnded(at: number): void {
    this.streamEndedAt ??= at
  }

  started(index: number, mode: ExecutionMode | undefined): void {
    if (!this.open || !this.timed || mode === undefined) return
    const at = performance.now()
    const call = this.list[index]!
    call.startedAt = at
    const early = this.duringStream()
    if (early) this.startedEarly++
    if (this.onEvent === undefined) return
    this.emit({
      type: 'tool-call-start',
      ...this.base(call, at),
      mode,
      queueMs: at - (call.queuedAt ?? at),
      duringStream: early,
    })
  }

  reported(call: StepCall, report: ToolProgress): void {
    if (!this.open || this.onEvent === undefined) return
    const { progress, total, message } = report
    this.emit({ type: 'tool-call-progress', ...this.base(call, performance.now()), progress, total, message })
  }

  settled(index: number): void {
    // After a scheduler failure a call may be answered before its body settles: keep end last.
    if (!this.open || !this.timed) return
    const call = this.list[index]!
    if (call.committedAt !== undefined) return
    const at = performance.now()
    call.settledAt = at
    if (this.onEvent === undefined) return
    this.emit({ type: 'tool-call-settled', ...this.base(call, at), runMs: at - (call.startedAt ?? at) })
  }

  committed(index: number, result: ToolExecutionResult): void {
    if (!this.open || !this.timed) return
    const call = this.list[index]!
    const at = performance.now()
    call.committedAt = at
    if (this.onEvent === undefined) return
    const { queuedAt, startedAt: start } = call
    const settled = call.settledAt ?? start ?? at
    const timings =
      start === undefined
        ? { queueMs: at - (queuedAt ?? at), runMs: 0, commitMs: 0 }
        : { queueMs: start - (queuedAt ?? start), runMs: settled - start, commitMs: at - settled }
    const { block } = call
    const resultLabel = this.tools.describeResult(block.name, parsedArgs(block.arguments), result)
    this.emit({
      type: 'tool-call-end',
      ...this.base(call, at),
      result,
      resultLabel,
      started: start !== undefined,
      timings,
    })
  }

  recordedTimings(call: StepCall): ToolCallRecordedTimings | undefined {
    if (call.startedAt === undefined) return undefined
    return measureRecordedTimings(call, performance.now(), this.recorded)
  }

  figures(): EagerDispatchFigures | undefined {
    const end = this.streamEndedAt
    if (!this.streaming || end === undefined) return undefined
    let overlapMs = 0
    let longestRunMs = 0
    let lastCommitAt = end
    for (const call of this.list) {
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
      queuedDuringStream: this.queuedEarly,
      startedDuringStream: this.startedEarly,
      overlapMs,
      savedMs: Math.max(0, end + longestRunMs - lastCommitAt),
    }
  }

  close(): void {
    this.open = false
  }
}

export function createToolCallProgress(options: ToolCallProgressOptions): ToolCallProgress {
  return new StepProgress(options)
}
