/** The longest wait a header may ask for; anything above is treated as this (a day). */
const MAX_RETRY_AFTER_MS = 86_400_000

const clamp = (ms: number): number => Math.min(Math.max(0, Math.round(ms)), MAX_RETRY_AFTER_MS)

/**
 * How long the provider asked to wait, from an `APICallError`'s response headers (lower-case keys,
 * as the AI SDK records them): `retry-after-ms` first, then `retry-after` as seconds or an HTTP
 * date. Unparsable or missing is `undefined`; a date in the past is 0.
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined
  const ms = headers['retry-after-ms']?.trim()
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return clamp(Number(ms))
  const value = headers['retry-after']?.trim()
  if (value === undefined || value === '') return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return clamp(Number(value) * 1000)
  if (!/[A-Za-z]{3}/.test(value) || !/\d{4}/.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : clamp(at - now)
}
