/**
 * Puts intervals (in start order) on the fewest lanes so that none overlap on a lane: each takes the
 * lowest lane free at its start (an interval ending at `t` frees its lane for one starting at `t`).
 * When the intervals are pool claims this is a slot assignment: no more lanes than the most claims
 * held at once.
 */
export function assignLanes(intervals: readonly { readonly start: number; readonly end: number }[]): {
  readonly lanes: number[]
  readonly count: number
} {
  const laneEnds: number[] = []
  const lanes = intervals.map(({ start, end }) => {
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start)
    if (lane === -1) lane = laneEnds.push(end) - 1
    else laneEnds[lane] = end
    return lane
  })
  return { lanes, count: laneEnds.length }
}
