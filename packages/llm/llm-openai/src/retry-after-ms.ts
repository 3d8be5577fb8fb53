/** The longest wait a header may ask for; anything above is treated as this (a day). */
const MAX_RETRY_AFTER_MS = 86_400_000

function clamp(ms: number): number {
  return Math.min(Math.max(0, Math.round(ms)), MAX_RETRY_AFTER_MS)
}

/**
 * How long the provider asked to wait, in milliseconds, or `undefined` when it did not say:
 * `retry-after-ms` (milliseconds) first, then `Retry-After` as delay-seconds or an HTTP date
 * (relative to `now`). Negative, unparsable or empty values count as not said; past dates as 0.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim()
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return clamp(Number(ms))
  const value = headers.get('retry-after')?.trim()
  if (value === undefined || value === '') return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return clamp(Number(value) * 1000)
  // An HTTP date always names its weekday and GMT; a bare number or word is not a date.
  if (!/[A-Za-z]{3}/.test(value) || !/\d{4}/.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : clamp(at - now)
}
