import { describe, expect, it } from 'vitest'
import { retryAfterMs } from '@deepseek-ai/dsh-llm-openai'

const now = Date.parse('2026-01-01T00:00:00Z')
const headers = (entries: Record<string, string>) => new Headers(entries)

describe('retryAfterMs', () => {
  it('reads Retry-After as delay-seconds (whole or decimal)', () => {
    expect(retryAfterMs(headers({ 'retry-after': '7' }), now)).toBe(7000)
    expect(retryAfterMs(headers({ 'retry-after': ' 1.5 ' }), now)).toBe(1500)
    expect(retryAfterMs(headers({ 'retry-after': '0' }), now)).toBe(0)
  })

  it('reads Retry-After as an HTTP date relative to now; a past date is 0', () => {
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000)
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0)
  })

  it('prefers retry-after-ms', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250)
  })

  it('is undefined when nothing usable was said, and caps absurd waits at a day', () => {
    for (const value of ['', 'soon', '-5', '1e3', 'NaN', '12 parsecs'])
      expect([value, retryAfterMs(headers({ 'retry-after': value }), now)]).toEqual([value, undefined])
    expect(retryAfterMs(headers({}), now)).toBeUndefined()
    expect(retryAfterMs(headers({ 'retry-after-ms': 'x', 'retry-after': '2' }), now)).toBe(2000)
    expect(retryAfterMs(headers({ 'retry-after': '999999999' }), now)).toBe(86_400_000)
  })
})
