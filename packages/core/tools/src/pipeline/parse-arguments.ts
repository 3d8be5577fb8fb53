import { describeValue, type JsonObject } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { clip, MAX_ECHOED_PREVIEW } from '../contract/clip.ts'
import { findLossyInteger } from './lossy-integer.ts'

/**
 * The runtime's settings are passed as they are (named as in `installTools`' options), so a call
 * makes no limits record of its own.
 */
export interface ArgumentLimits {
  /** UTF-8 bytes of the raw string (default 1 MiB). */
  readonly maxArgumentBytes: number
  /** Nesting depth of the parsed value (default 64). */
  readonly maxArgumentDepth: number
}

/** Why the arguments were refused: a message the model can act on. */
export class ArgumentsRefused {
  constructor(readonly message: string) {}
}

/**
 * The parsed object itself, or why it was refused: a parse that succeeds (nearly every call) makes
 * no record around its value.
 */
export type ParsedArguments = JsonObject | ArgumentsRefused

/** What one pass over the raw text found (see `scanArgumentText`). */
const DEEP = 1
/** A key could decode to `__proto__`, or a number could overflow: `JSON.parse` needs the checking reviver. */
const SUSPICIOUS = 2
/** A run of 16+ digits: an integer may be beyond what a double holds exactly. */
const LONG_DIGITS = 4

/**
 * One pass over the raw text, before `JSON.parse`: nesting depth (counted outside strings, so
 * 100,000-deep input is refused before parsing), and the patterns that need a closer look. A key
 * can only decode to "__proto__" if the text spells it or uses a `\u` escape; a number can only
 * overflow to Infinity with an exponent or ~309 digits; only integers of 16+ digits can be lossy.
 * Like the regular expressions it replaces, the patterns are looked for everywhere, strings
 * included: a false alarm only costs the slower, exact check.
 */
function scanArgumentText(raw: string, maxDepth: number): number {
  let flags = 0
  let depth = 0
  let inString = false
  let digits = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      digits++
      if (digits >= 16) flags |= digits >= 300 ? SUSPICIOUS | LONG_DIGITS : LONG_DIGITS
      continue
    }
    if ((c === 101 || c === 69) /* e E */ && digits > 0) flags |= SUSPICIOUS
    digits = 0
    if (c === 92 /* \ */) {
      if (raw.charCodeAt(i + 1) === 117 /* u */) flags |= SUSPICIOUS
      if (inString) i++
    } else if (c === 34 /* " */) inString = !inString
    else if (inString) {
      if (c === 95 /* _ */ && raw.startsWith('__proto__', i)) flags |= SUSPICIOUS
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) return flags | DEEP
    } else if (c === 125 || c === 93) depth--
    else if (c === 95 && raw.startsWith('__proto__', i)) flags |= SUSPICIOUS
  }
  return flags
}

/**
 * The model's raw argument string (or a parsed object) → a detached, lossless JSON object.
 * Invalid JSON, oversized or too-deep input, a non-object root and `__proto__` keys are refused
 * with a message the model can act on.
 */
export function parseToolArguments(raw: string | JsonObject, limits: ArgumentLimits): ParsedArguments {
  let parsed: unknown
  if (typeof raw === 'string') {
    // a UTF-16 unit is at most 3 UTF-8 bytes: short texts need no count
    if (raw.length * 3 > limits.maxArgumentBytes) {
      const bytes = Buffer.byteLength(raw, 'utf8')
      if (bytes > limits.maxArgumentBytes) {
        return new ArgumentsRefused(
          `arguments are ${bytes} bytes; the limit is ${limits.maxArgumentBytes} bytes`,
        )
      }
    }
    const first = raw.charCodeAt(0)
    // only a text that starts with whitespace (or is empty) can be blank
    if (raw.length === 0 || ((first <= 32 || first > 126) && raw.trim() === '')) return {}
    const flags = scanArgumentText(raw, limits.maxArgumentDepth)
    if ((flags & DEEP) !== 0) {
      return new ArgumentsRefused(`arguments nest deeper than ${limits.maxArgumentDepth} levels`)
    }
    const suspicious = (flags & SUSPICIOUS) !== 0
    let protoKey = false
    let overflow = false
    try {
      parsed = suspicious
        ? JSON.parse(raw, (key, value: unknown) => {
            if (key === '__proto__') protoKey = true
            if (typeof value === 'number' && !Number.isFinite(value)) overflow = true
            return value
          })
        : JSON.parse(raw)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return new ArgumentsRefused(
        `arguments are not valid JSON (${clip(reason, MAX_ECHOED_PREVIEW)}); received: ${clip(raw, MAX_ECHOED_PREVIEW)}`,
      )
    }
    if (protoKey) return new ArgumentsRefused('arguments must not contain a "__proto__" key')
    if (overflow) return new ArgumentsRefused('arguments contain a number too large to represent')
    const lossy = (flags & LONG_DIGITS) === 0 ? undefined : findLossyInteger(raw)
    if (lossy !== undefined) {
      return new ArgumentsRefused(
        `arguments contain the integer ${clip(lossy, 40)}, which a JSON number cannot carry exactly (integers beyond ±2^53 lose precision); send it as a string`,
      )
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return new ArgumentsRefused(`arguments must be a JSON object, got ${describeValue(parsed)}`)
    }
    // JSON.parse builds fresh plain objects of JSON values: already a detached lossless copy.
    return parsed as JsonObject
  } else {
    parsed = raw
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return new ArgumentsRefused(`arguments must be a JSON object, got ${describeValue(parsed)}`)
  }
  const snapshot = snapshotJsonValue(parsed, { maxDepth: limits.maxArgumentDepth })
  if (!snapshot.ok)
    return new ArgumentsRefused(`arguments are not plain JSON: ${snapshot.path} ${snapshot.reason}`)
  if (typeof raw !== 'string' && hasProtoKey(snapshot.value)) {
    return new ArgumentsRefused('arguments must not contain a "__proto__" key')
  }
  return snapshot.value as JsonObject
}

function hasProtoKey(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const current = stack.pop()
    if (typeof current !== 'object' || current === null) continue
    if (!Array.isArray(current) && Object.prototype.hasOwnProperty.call(current, '__proto__')) return true
    for (const child of Object.values(current)) stack.push(child)
  }
  return false
}
