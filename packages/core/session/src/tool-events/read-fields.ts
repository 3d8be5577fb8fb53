import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from '../errors.ts'

/**
 * Checks for the tool event builders. The builders read each field of the caller's object once,
 * with plain property reads (so every read site sees one shape and stays fast), inside one `try`
 * that names the field whose getter threw (`readFailed`); then they check what they read here, and
 * keep only the checked primitives, so nothing the caller changes later reaches the event. A
 * failure is `INVALID_ARGUMENT` naming the field; a number that JSON cannot hold is `NOT_JSON`, as
 * `append` reports it.
 */
export interface FieldReader {
  /** The builder's name, for messages: `toolResultEventData(fields)`. */
  readonly where: string
}

/** An object the builder may read fields from; never a Proxy (its traps could answer differently each time). */
export function checkRecord(
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

/** The error of a read that threw: a getter of the field named `at`. */
export function readFailed(reader: FieldReader, at: string, error: unknown): SessionError {
  return invalid(reader, `${at} has a getter that threw`, error)
}

export function checkString(reader: FieldReader, value: unknown, at: string): string {
  if (typeof value !== 'string') throw invalid(reader, `${at} must be a string, got ${describe(value)}`)
  return value
}

export function checkOptionalString(reader: FieldReader, value: unknown, at: string): string | undefined {
  return value === undefined ? undefined : checkString(reader, value, at)
}

/** A finite number (`-0` read as `0`, as JSON writes it). */
export function checkNumber(reader: FieldReader, value: unknown, at: string): number {
  if (typeof value !== 'number') throw invalid(reader, `${at} must be a number, got ${describe(value)}`)
  if (value - value !== 0) {
    throw new SessionError({
      code: 'NOT_JSON',
      message: `${reader.where}: ${at} is ${Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity'}`,
      details: { jsonPath: at.replace(/^fields/, '$') },
    })
  }
  return value === 0 ? 0 : value
}

export function checkBoolean(reader: FieldReader, value: unknown, at: string): boolean {
  if (typeof value !== 'boolean') throw invalid(reader, `${at} must be a boolean, got ${describe(value)}`)
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
