import { describeValue } from '@deepseek-ai/dsh-llm'
import type { ToolProgressReport } from '@deepseek-ai/dsh-tools'

/** A progress message longer than this is cut before it crosses Redis (the caller cuts to the same). */
const MAX_MESSAGE = 500

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
      const checked = readReport(report)
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

function readReport(report: unknown): ToolProgressReport {
  const where = 'exec.reportProgress(report)'
  if (typeof report !== 'object' || report === null)
    throw new TypeError(
      `${where}: report must be an object like { progress: 1, total: 4 }, got ${describeValue(report)}`,
    )
  // read each field once: a getter cannot say one thing to the check and another to what is sent
  const { progress, total, message } = report as Record<string, unknown>
  if (typeof progress !== 'number' || !Number.isFinite(progress))
    throw new TypeError(`${where}: report.progress must be a finite number, got ${describeValue(progress)}`)
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total)))
    throw new TypeError(
      `${where}: report.total must be a finite number when given, got ${describeValue(total)}`,
    )
  if (message !== undefined && typeof message !== 'string')
    throw new TypeError(`${where}: report.message must be a string when given, got ${describeValue(message)}`)
  return {
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined
      ? {}
      : { message: message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…` }),
  }
}
