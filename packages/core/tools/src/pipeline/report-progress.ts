import type { ToolProgress, ToolProgressReport } from '../contract/types.ts'
import { describeValue } from '@deepseek-ai/dsh-llm'
import type { RunState } from './run-state.ts'

/** A progress message longer than this is cut (a progress line is for a status bar, not a log). */
const MAX_MESSAGE = 500

/**
 * `exec.reportProgress`: checks the report, drops it once the call's result exists or when the
 * call's previous event is closer than `progressIntervalMs` (a report that reaches `total` always
 * passes, so a UI sees the end), and emits one frozen `tools/progress`. Nothing is built when no
 * one listens.
 */
export function reportProgress(run: RunState, report: ToolProgressReport): void {
  const { progress, total, message } = readReport(report)
  if (run.stage !== 'dispatching') return
  const now = performance.now()
  if (run.tool?.definition.progressResetsTimeout !== undefined) run.reportedAt = now
  if (!run.scope.hasListeners('tools/progress')) return
  const done = total !== undefined && progress >= total
  if (!done && now - run.progressAt < run.state.registry.options.progressIntervalMs) return
  run.progressAt = now
  const event: ToolProgress = Object.freeze({
    callId: run.callId,
    toolName: run.toolName,
    turn: run.call.turn,
    step: run.call.step,
    progress,
    total,
    message:
      message === undefined || message.length <= MAX_MESSAGE
        ? message
        : `${message.slice(0, MAX_MESSAGE - 1)}…`,
  })
  run.scope.emit('tools/progress', event)
}

function readReport(report: unknown): {
  progress: number
  total: number | undefined
  message: string | undefined
} {
  const where = 'exec.reportProgress(report)'
  if (typeof report !== 'object' || report === null)
    throw new TypeError(
      `${where}: report must be an object like { progress: 1, total: 4 }, got ${describeValue(report)}`,
    )
  // read each field once: a getter cannot say one thing to the check and another to the event
  const { progress, total, message } = report as Record<string, unknown>
  if (typeof progress !== 'number' || !Number.isFinite(progress))
    throw new TypeError(`${where}: report.progress must be a finite number, got ${describeValue(progress)}`)
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total)))
    throw new TypeError(
      `${where}: report.total must be a finite number when given, got ${describeValue(total)}`,
    )
  if (message !== undefined && typeof message !== 'string')
    throw new TypeError(`${where}: report.message must be a string when given, got ${describeValue(message)}`)
  return { progress, total, message }
}
