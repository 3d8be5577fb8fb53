import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from '../errors.ts'

/**
 * Typed reads for the tool event builders: each field of the caller's object is read once (a getter
 * runs once), checked for its documented type, and only the checked primitive is kept, so nothing the
 * caller changes later reaches the event. A failure is `INVALID_ARGUMENT` naming the field; a number
 * that JSON cannot hold is `NOT_JSON`, as `append` reports it.
 */
export interface FieldReader {
  /** The builder's name, for messages: `toolResultEventData(fields)`. */
  readonly where: string
}

/** The object the builder reads its fields from; never a Proxy (its traps could answer differently each time). */
export function readRecord(
  reader: FieldReader,
  value: unknown,
  at: string,
): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(reader, `${at} must be an object, got ${describe(value)}`)
  }
  if (types.isProxy(value)) throw invalid(reader, `${at} is a Proxy`)
  return value as Readonly<Record<string, unknown>>
}

/** `record[key]`, a getter run once; a getter that throws is `INVALID_ARGUMENT`. */
export function readField(reader: FieldReader, record: object, key: string, at: string): unknown {
  try {
    return (record as Record<string, unknown>)[key]
  } catch (error) {
    throw invalid(reader, `${at}.${key} has a getter that threw`, error)
  }
}

export function readString(reader: FieldReader, record: object, key: string, at: string): string {
  const value = readField(reader, record, key, at)
  if (typeof value !== 'string')
    throw invalid(reader, `${at}.${key} must be a string, got ${describe(value)}`)
  return value
}

export function readOptionalString(
  reader: FieldReader,
  record: object,
  key: string,
  at: string,
): string | undefined {
  const value = readField(reader, record, key, at)
  if (value === undefined) return undefined
  if (typeof value !== 'string')
    throw invalid(reader, `${at}.${key} must be a string, got ${describe(value)}`)
  return value
}

/** A finite number (`-0` read as `0`, as JSON writes it). */
export function readNumber(reader: FieldReader, record: object, key: string, at: string): number {
  const value = readField(reader, record, key, at)
  if (typeof value !== 'number')
    throw invalid(reader, `${at}.${key} must be a number, got ${describe(value)}`)
  if (value - value !== 0) {
    throw new SessionError({
      code: 'NOT_JSON',
      message: `${reader.where}: ${at}.${key} is ${Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity'}`,
      details: { jsonPath: `${at.replace(/^fields/, '$')}.${key}` },
    })
  }
  return value === 0 ? 0 : value
}

export function readBoolean(reader: FieldReader, record: object, key: string, at: string): boolean {
  const value = readField(reader, record, key, at)
  if (typeof value !== 'boolean')
    throw invalid(reader, `${at}.${key} must be a boolean, got ${describe(value)}`)
  return value
}

export function invalid(reader: FieldReader, message: string, cause?: unknown): SessionError {
  return new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${reader.where}: ${message}`,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Describing a proxy could run its traps. */
function describe(value: unknown): string {
  return typeof value === 'object' && value !== null && types.isProxy(value)
    ? 'a Proxy'
    : describeValue(value)
}
