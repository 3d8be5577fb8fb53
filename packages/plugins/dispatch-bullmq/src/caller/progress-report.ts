import type { ToolProgressReport } from '@deepseek-ai/dsh-tools'

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value)

/**
 * A progress report as a worker sent it (`job.updateProgress`, D9), read without trusting it:
 * undefined for anything that is not `{ progress, total?, message? }` with finite numbers and a
 * string message. The caller's pipeline then treats it as a local body's report (rate limit, clip,
 * `tools/progress`, an idle timeout's restart).
 */
export function readRemoteProgress(data: unknown): ToolProgressReport | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  const { progress, total, message } = data as Record<string, unknown>
  if (!isFiniteNumber(progress)) return undefined
  if (total !== undefined && !isFiniteNumber(total)) return undefined
  if (message !== undefined && typeof message !== 'string') return undefined
  return {
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  }
}
