import { checkProgressReport, type ToolProgressReport } from '@deepseek-ai/dsh-tools'

/** What a worker's `exec.reportProgress` does with a report: check it, thin it out, send it. */
export interface WorkerProgress {
  report(report: ToolProgressReport): void
  /** The body settled: later reports are dropped (its result is on its way). */
  stop(): void
}

/**
 * D9: a remote body's `exec.reportProgress`, checked as the caller's pipeline checks a local body's
 * (a TypeError naming the field), rate-limited as it is (a report closer than `intervalMs` to the
 * last one sent is dropped, unless it reaches `total`), and sent as the job's progress
 * (`job.updateProgress`, a QueueEvents `progress` event the caller forwards). Sending is not awaited
 * and its failure is ignored: progress is a view, never a record.
 */
export function createWorkerProgress(
  send: (report: ToolProgressReport) => Promise<unknown>,
  intervalMs: number,
): WorkerProgress {
  let sentAt = Number.NEGATIVE_INFINITY
  let stopped = false
  return {
    report(report) {
      const checked = checkProgressReport(report)
      if (stopped) return
      const now = performance.now()
      const done = checked.total !== undefined && checked.progress >= checked.total
      if (!done && now - sentAt < intervalMs) return
      sentAt = now
      send(checked).catch(() => undefined)
    },
    stop() {
      stopped = true
    },
  }
}
