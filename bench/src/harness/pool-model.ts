/** mulberry32: a tiny seeded PRNG, so every run sleeps the same durations. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Heavy-tailed tool durations in ms: Pareto with scale 1 ms and shape 1.2 (most calls take a few ms,
 * a few take tens), capped at `maxMs`.
 */
export function heavyTailedDurations(options: { count: number; seed: number; maxMs: number }): number[] {
  const random = seededRandom(options.seed)
  return Array.from({ length: options.count }, () =>
    Math.min(options.maxMs, 1 / Math.pow(1 - random(), 1 / 1.2)),
  )
}

/**
 * The makespan of an ideal in-order greedy pool of `cap` slots: each call, in order, starts the
 * moment a slot frees up, with no scheduling overhead at all.
 */
export function greedyPoolMakespan(durations: readonly number[], cap: number): number {
  const freeAt = new Array<number>(Math.min(cap, Math.max(1, durations.length))).fill(0)
  let makespan = 0
  for (const duration of durations) {
    let slot = 0
    for (let i = 1; i < freeAt.length; i++) if (freeAt[i]! < freeAt[slot]!) slot = i
    const end = freeAt[slot]! + duration
    freeAt[slot] = end
    if (end > makespan) makespan = end
  }
  return makespan
}

/** The makespan of a batch-by-batch scheduler: `cap` calls at a time, each batch waits for its slowest. */
export function batchByBatchMakespan(durations: readonly number[], cap: number): number {
  let makespan = 0
  for (let start = 0; start < durations.length; start += cap) {
    makespan += Math.max(...durations.slice(start, start + cap))
  }
  return makespan
}
