import type { Stats } from '../types.ts'

/** Linear interpolation between the closest ranks of an ascending array. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

/** Median, quartiles and MAD of a non-empty list of finite numbers. */
export function summarize(values: readonly number[]): Stats {
  if (values.length === 0) throw new Error('summarize: no values')
  for (const value of values) {
    if (!Number.isFinite(value)) throw new Error(`summarize: ${value} is not a finite number`)
  }
  const sorted = [...values].sort((a, b) => a - b)
  const median = quantile(sorted, 0.5)
  const deviations = sorted.map((value) => Math.abs(value - median)).sort((a, b) => a - b)
  return {
    n: sorted.length,
    median,
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    mad: quantile(deviations, 0.5),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  }
}
