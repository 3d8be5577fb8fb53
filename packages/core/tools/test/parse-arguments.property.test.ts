import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { describeValue, type JsonObject } from '@deepseek-ai/dsh-llm'
import {
  ArgumentsRefused,
  parseToolArguments,
  type ParsedArguments,
} from '../src/pipeline/parse-arguments.ts'
import { clip, MAX_ECHOED_PREVIEW } from '../src/contract/clip.ts'
import { findLossyInteger } from '../src/pipeline/lossy-integer.ts'

/** An outcome as the oracle states it: the value, or the message it was refused with. */
type Outcome =
  { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly message: string }

/** `parseToolArguments`' answer (the object itself, or an `ArgumentsRefused`) as an `Outcome`. */
function outcomeOf(parsed: ParsedArguments): Outcome {
  return parsed instanceof ArgumentsRefused
    ? { ok: false, message: parsed.message }
    : { ok: true, value: parsed }
}

/**
 * The checks `parseToolArguments` made before its one-pass scan, kept as the oracle: a depth
 * count, three substring/regex tests that pick the checking reviver, and the lossy-integer scan.
 */
function reference(raw: string, maxBytes: number, maxDepth: number): Outcome {
  const bytes = Buffer.byteLength(raw, 'utf8')
  if (bytes > maxBytes)
    return { ok: false, message: `arguments are ${bytes} bytes; the limit is ${maxBytes} bytes` }
  if (raw.trim() === '') return { ok: true, value: {} }
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < raw.length && max <= maxDepth; i++) {
    const c = raw.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) max = Math.max(max, ++depth)
    else if (c === 125 || c === 93) depth--
  }
  if (max > maxDepth) return { ok: false, message: `arguments nest deeper than ${maxDepth} levels` }
  let protoKey = false
  let overflow = false
  let parsed: unknown
  try {
    parsed = JSON.parse(raw, (key, value: unknown) => {
      if (key === '__proto__') protoKey = true
      if (typeof value === 'number' && !Number.isFinite(value)) overflow = true
      return value
    })
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
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, message: `arguments must be a JSON object, got ${describeValue(parsed)}` }
  return { ok: true, value: parsed as JsonObject }
}

// Texts built from the pieces the scan looks for, glued at random: keys that are or escape to
// "__proto__", exponents, long digit runs, escapes, brackets, whitespace, broken JSON.
const piece = fc.constantFrom(
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '\\"',
  '\\\\',
  '\\u005f',
  '"__proto__"',
  '"\\u005f_proto__"',
  '__proto__',
  '"a"',
  '"k"',
  '1',
  '-',
  '.5',
  'e',
  'E',
  '1e400',
  '2e3',
  '9007199254740993',
  '1152921504606846976',
  '1'.repeat(309),
  ' ',
  '\n',
  '\u00a0',
  '\ufeff',
  'true',
  'null',
  'é',
)
const key = fc.constantFrom(
  '"a"',
  '"__proto__"',
  '"\\u005f_proto__"',
  '"__pro\\u0074o__"',
  '"x\\\\u005f"',
  '"e1"',
  '"\\"q"',
)
const scalar = fc.constantFrom(
  '1',
  '-0',
  '2.5e3',
  '1e400',
  '-1E999',
  '9007199254740993',
  '9007199254740992',
  '1152921504606846976',
  '9'.repeat(310),
  '"1e400"',
  '"12345678901234567"',
  '"__proto__"',
  'true',
  'null',
  '"\\u0041"',
)
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    tie('object'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
  ),
  object: fc
    .array(fc.tuple(key, tie('value'), fc.constantFrom('', ' ', '\n')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([k, v, ws]) => `${ws}${k}:${ws}${v}`).join(',')}}`),
}))
const text = fc.oneof(
  value.map(String),
  fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('')),
  fc.json().map((json) => (json.startsWith('{') ? json : `{"v":${json}}`)),
)

describe('argument parsing: the one-pass scan agrees with the checks it replaced', () => {
  it('T3: same verdict and message as the reference on texts rich in escapes, exponents, digit runs and "__proto__"', () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(12, 64, 1_000_000),
        (raw, maxDepth, maxBytes) => {
          expect(
            outcomeOf(parseToolArguments(raw, { maxArgumentBytes: maxBytes, maxArgumentDepth: maxDepth })),
          ).toEqual(reference(raw, maxBytes, maxDepth))
        },
      ),
      { numRuns: 3000 },
    )
  })
})
