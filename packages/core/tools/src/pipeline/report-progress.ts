import type { ToolProgress, ToolProgressReport } from '../contract/types.ts'
import { checkProgressReport } from '../contract/check-progress-report.ts'
import type { RunState } from './run-state.ts'

/**
 * `exec.reportProgress`: checks the report, drops it once the call's result exists or when the
 * call's previous event is closer than `progressIntervalMs` (a report that reaches `total` always
 * passes, so a UI sees the end), and emits one frozen `tools/progress`. Nothing is built when no
 * one listens.
 */
export function reportProgress(run: RunState, report: ToolProgressReport): void {
  const { progress, total, message } = checkProgressReport(report)
  if (run.stage !== 'dispatching') return
  const now = performance.now()
  if (run.tool?.definition.progressResetsTimeout !== undefined) run.reportedAt = now
  if (!run.scope.hasListeners('tools/progress')) return
  const done = total !== undefined && progress >= total
  const last = run.progressAt
  if (!done && last !== undefined && now - last < run.state.registry.options.progressIntervalMs) return
  run.progressAt = now
  const event: ToolProgress = Object.freeze({
    callId: run.callId,
    toolName: run.toolName,
    turn: run.input.turn,
    step: run.input.step,
    progress,
    total,
    message,
  })
  run.scope.emit('tools/progress', event)
}
