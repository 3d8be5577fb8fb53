import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'

/**
 * Reads an options bag key by key against an allow-list, so a typo is an error instead of a silently
 * ignored setting. Functions (clocks, loggers) are kept by reference, which is why this is not a snapshot.
 */
export function readStoreOptions(
  where: string,
  options: unknown,
  known: readonly string[],
): Readonly<Record<string, unknown>> {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null || Array.isArray(options) || types.isProxy(options)) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options must be a plain object, got ${describeValue(options)}`,
    })
  }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: options has an unknown key ${JSON.stringify(key)} (known: ${known.join(', ')})`,
      })
    }
    const value: unknown = (options as Record<string, unknown>)[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/** `value` as a clock, or `undefined` for the system clock. */
export function readClockOption(where: string, value: unknown): (() => Date) | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'function') {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.clock must be a function returning a Date, got ${describeValue(value)}`,
    })
  }
  return value as () => Date
}
