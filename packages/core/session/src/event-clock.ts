import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'

/** Event times as ISO-8601 strings from a session clock; throws `INVALID_ARGUMENT` when the clock misbehaves. */
export type EventClock = (where: () => string) => string

const NativeDate = Date
const getTime = Function.prototype.call.bind(Date.prototype.getTime) as (date: Date) => number
const toIsoString = Function.prototype.call.bind(Date.prototype.toISOString) as (date: Date) => string

/**
 * Reads `clock` (default: the system time) and formats each distinct millisecond once: appends that
 * land in the same millisecond share one string instead of building a `Date` and an ISO string each.
 * The value is read through `Date.prototype` methods, so a Date with an overridden `toISOString`
 * cannot inject another string.
 */
export function createEventClock(clock: (() => Date) | undefined): EventClock {
  let lastMs = Number.NaN
  let lastIso = ''
  const format = (ms: number): string => {
    if (ms !== lastMs) {
      lastIso = toIsoString(new NativeDate(ms))
      lastMs = ms
    }
    return lastIso
  }
  // Looked up per call, so fake timers that replace `Date` are honoured as before.
  if (clock === undefined) return () => format(Date.now())
  return (where) => {
    let now: unknown
    try {
      now = clock()
    } catch (error) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where()}: the session clock threw`,
        cause: error,
      })
    }
    const ms = types.isDate(now) ? getTime(now as Date) : Number.NaN
    if (Number.isNaN(ms)) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where()}: the session clock returned ${describeValue(now)}, not a valid Date`,
      })
    }
    return format(ms)
  }
}
