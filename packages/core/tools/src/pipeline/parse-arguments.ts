import { describeValue, type JsonObject } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import { clip, MAX_ECHOED_PREVIEW } from './clip.ts'
import { findLossyInteger } from './lossy-integer.ts'

export interface ArgumentLimits {
  /** UTF-8 bytes of the raw string (default 1 MiB). */
  readonly maxBytes: number
  /** Nesting depth of the parsed value (default 64). */
  readonly maxDepth: number
}

export type ParsedArguments =
  { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly message: string }

const OVERFLOW_RISK = /\d[eE]|\d{300}/

/** Depth of a JSON text, counted without parsing it, so 100,000-deep input is refused before `JSON.parse`. */
function jsonTextDepth(raw: string, limit: number): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++
      if (depth > max) max = depth
      if (max > limit) return max
    } else if (c === 125 || c === 93) depth--
  }
  return max
}

/**
 * The model's raw argument string (or a parsed object) → a detached, lossless JSON object.
 * Invalid JSON, oversized or too-deep input, a non-object root and `__proto__` keys are refused
 * with a message the model can act on.
 */
export function parseToolArguments(raw: string | JsonObject, limits: ArgumentLimits): ParsedArguments {
  let parsed: unknown
  if (typeof raw === 'string') {
    const bytes = Buffer.byteLength(raw, 'utf8')
    if (bytes > limits.maxBytes) {
      return { ok: false, message: `arguments are ${bytes} bytes; the limit is ${limits.maxBytes} bytes` }
    }
    if (raw.trim() === '') return { ok: true, value: {} }
    if (jsonTextDepth(raw, limits.maxDepth) > limits.maxDepth) {
      return { ok: false, message: `arguments nest deeper than ${limits.maxDepth} levels` }
    }
    // A key can only decode to "__proto__" if the text spells it or uses an escape, and a number can
    // only overflow to Infinity with an exponent or ~309 digits; only then is the slower reviver run.
    const suspicious = raw.includes('__proto__') || raw.includes('\\u') || OVERFLOW_RISK.test(raw)
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
      return {
        ok: false,
        message: `arguments are not valid JSON (${clip(reason, MAX_ECHOED_PREVIEW)}); received: ${clip(raw, MAX_ECHOED_PREVIEW)}`,
      }
    }
    if (protoKey) return { ok: false, message: 'arguments must not contain a "__proto__" key' }
    if (overflow) return { ok: false, message: 'arguments contain a number too large to represent' }
    const lossy = findLossyInteger(raw)
    if (lossy !== undefined) {
      return {
        ok: false,
        message: `arguments contain the integer ${clip(lossy, 40)}, which a JSON number cannot carry exactly (integers beyond ±2^53 lose precision); send it as a string`,
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ok: false, message: `arguments must be a JSON object, got ${describeValue(parsed)}` }
    }
    // JSON.parse builds fresh plain objects of JSON values: already a detached lossless copy.
    return { ok: true, value: parsed as JsonObject }
  } else {
    parsed = raw
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: `arguments must be a JSON object, got ${describeValue(parsed)}` }
  }
  const snapshot = snapshotJsonValue(parsed, { maxDepth: limits.maxDepth })
  if (!snapshot.ok)
    return { ok: false, message: `arguments are not plain JSON: ${snapshot.path} ${snapshot.reason}` }
  if (typeof raw !== 'string' && hasProtoKey(snapshot.value)) {
    return { ok: false, message: 'arguments must not contain a "__proto__" key' }
  }
  return { ok: true, value: snapshot.value as JsonObject }
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
