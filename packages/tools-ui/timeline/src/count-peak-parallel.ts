/** A call's claim on its pool, in ms since its step's start. */
export interface Claim {
  readonly start: number
  readonly end: number
  readonly nested: boolean
}

/**
 * The log's times are whole milliseconds (ISO strings, cut, not rounded), and a call's start and end
 * are derived from its result's time: a slot handed from one call to the next at one instant can
 * look like an overlap of less than a millisecond. Claims overlapping by less than this ran one
 * after the other.
 */
export const LOG_RESOLUTION_MS = 1

/**
 * The most claims running at one moment, and how many of those were nested calls. `claims` are in
 * log order. The moment is the start of some claim: another claim counts there when it started
 * before it (or at the same time, earlier in the log) and ends after it, at least `resolution`
 * after it; the claim starting there always counts, however short it is.
 */
export function countPeakParallel(
  claims: readonly Claim[],
  resolution = LOG_RESOLUTION_MS,
): { readonly peak: number; readonly nested: number } {
  let peak = 0
  let nested = 0
  for (const [i, at] of claims.entries()) {
    let running = 0
    let runningNested = 0
    for (const [j, other] of claims.entries()) {
      const before = other.start < at.start || (other.start === at.start && j < i)
      const overlap = other.end - at.start
      if (j !== i && (!before || overlap <= 0 || overlap < resolution)) continue
      running += 1
      if (other.nested) runningNested += 1
    }
    if (running > peak || (running === peak && runningNested > nested)) {
      peak = running
      nested = runningNested
    }
  }
  return { peak, nested }
}
