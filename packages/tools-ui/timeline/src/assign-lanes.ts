/**
 * Puts intervals on the fewest lanes so that none overlap on a lane: taken in start order (ties in
 * input order), each takes the lowest lane free at its start. An interval ending at `t` frees its
 * lane for one starting at `t`, and with `slack` for one starting less than `slack` before `t` (an
 * overlap the data's resolution cannot tell from none). When the intervals are pool claims this is
 * a slot assignment: no more lanes than the most claims held at once. `lanes` is in input order.
 */
export function assignLanes(
  intervals: readonly { readonly start: number; readonly end: number }[],
  slack = 0,
): {
  readonly lanes: number[]
  readonly count: number
} {
  const order = intervals.map((_, index) => index).sort((a, b) => intervals[a]!.start - intervals[b]!.start)
  const laneEnds: number[] = []
  const lanes = new Array<number>(intervals.length)
  for (const index of order) {
    const { start, end } = intervals[index]!
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start || laneEnd - start < slack)
    if (lane === -1) lane = laneEnds.push(end) - 1
    else laneEnds[lane] = end
    lanes[index] = lane
  }
  return { lanes, count: laneEnds.length }
}
