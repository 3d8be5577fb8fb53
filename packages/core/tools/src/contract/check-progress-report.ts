import { describeValue } from '@deepseek-ai/dsh-llm'
import type { ToolProgressReport } from './types.ts'

/** A progress message longer than this is cut (a progress line is for a status bar, not a log). */
export const MAX_PROGRESS_MESSAGE = 500

/**
 * The check of `exec.reportProgress(report)`, for the pipeline and for transports that carry a
 * remote body's reports (a worker checks them as the caller's pipeline would): a `TypeError` naming
 * the field that is wrong; each field read once (a getter cannot say one thing to the check and
 * another to what is sent); the message cut to {@link MAX_PROGRESS_MESSAGE} characters.
 */
export function checkProgressReport(report: unknown): ToolProgressReport {
  const where = 'exec.reportProgress(report)'
  if (typeof report !== 'object' || report === null)
    throw new TypeError(
      `${where}: report must be an object like { progress: 1, total: 4 }, got ${describeValue(report)}`,
    )
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
      : {
          message:
            message.length <= MAX_PROGRESS_MESSAGE
              ? message
              : `${message.slice(0, MAX_PROGRESS_MESSAGE - 1)}…`,
        }),
  }
}
