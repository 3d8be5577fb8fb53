/**
 * Carried by the call a `tools/execute` wrapper gets (and by its spread copies), so the shipped
 * timeout wrapper reads the same clock as the pipeline's direct timeout.
 */
export const CALL_PROGRESS: unique symbol = Symbol.for('@deepseek-ai/dsh-tools.callProgress')

/**
 * What an idle timeout reads: when the body last reported progress (performance.now()), undefined
 * before its first report. (An earlier copy of the package reads the same field as a number: for
 * it, `undefined` makes the idle time NaN, so no time is left, as `-Infinity` did.)
 */
export interface ProgressClock {
  readonly reportedAt: number | undefined
}

/**
 * T48, a timeout that progress restarts: called when `timeoutMs` has passed since `armedAt`, it
 * says how much longer the body may run — 0 when it is time to time out. The body has `timeoutMs`
 * from its last report, and never more than `maxMs` from `startedAt`.
 */
export function idleTimeLeft(options: {
  readonly clock: ProgressClock
  readonly timeoutMs: number
  readonly maxMs: number
  readonly startedAt: number
  readonly now: number
}): number {
  const { clock, timeoutMs, maxMs, startedAt, now } = options
  const idle = clock.reportedAt === undefined ? 0 : clock.reportedAt + timeoutMs - now
  const whole = startedAt + maxMs - now
  const left = Math.min(idle, whole)
  return left > 0 ? Math.ceil(left) : 0
}
