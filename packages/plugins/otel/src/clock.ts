/**
 * Every time the plugin gives the SDK is milliseconds since the epoch on one clock:
 * `performance.timeOrigin + performance.now()`. The agent loop stamps its events with
 * `performance.now()`, and an SDK span left to read the time itself anchors each span to `Date.now()`
 * separately (millisecond resolution, a different sub-millisecond offset per span), so a child could
 * appear to end after its parent. One clock for all spans and events keeps the tree consistent.
 */
export function now(): number {
  return performance.timeOrigin + performance.now()
}

/** A `performance.now()` stamp (an `AgentEvent`'s `at`) on the same clock. */
export function fromPerformance(at: number): number {
  return performance.timeOrigin + at
}
