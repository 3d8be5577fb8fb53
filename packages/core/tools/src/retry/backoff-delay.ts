/**
 * The wait before retry number `attempt` (1 for the wait after the first failure): exponential,
 * `baseDelayMs * 2^(attempt-1)` capped at `maxDelayMs`, with "equal jitter": a random point in the
 * upper half of that window, so concurrent callers spread out but none retries at once.
 * `random` returns a number in [0, 1) (default `Math.random`; tests pass their own).
 * @example backoffDelay({ attempt: 3, baseDelayMs: 100, maxDelayMs: 5_000, random: () => 0 }) // 200
 */
export function backoffDelay(options: {
  readonly attempt: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly random?: () => number
}): number {
  const { attempt, baseDelayMs, maxDelayMs } = options
  const window = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1))
  const draw = (options.random ?? Math.random)()
  const unit = Number.isFinite(draw) ? Math.min(Math.max(draw, 0), 1) : 0
  return Math.round(window / 2 + (unit * window) / 2)
}
