/** Integers with fewer digits than this are always exact as doubles (2^53 has 16 digits). */
const MIGHT_BE_LOSSY = /\d{16}/
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y

/**
 * The first integer literal in a JSON text that a double cannot hold exactly (beyond ±2^53 and
 * not a power-of-two-friendly value such as 2^60), or undefined. `JSON.parse` would round it
 * silently, so the body would get another number than the model wrote. Strings are skipped;
 * numbers with a fraction or an exponent are left to ordinary floating-point rounding.
 */
export function findLossyInteger(raw: string): string | undefined {
  if (!MIGHT_BE_LOSSY.test(raw)) return undefined
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
      continue
    }
    if (c === 34) {
      inString = true
      continue
    }
    if (c !== 45 /* - */ && (c < 48 || c > 57)) continue
    NUMBER.lastIndex = i
    const match = NUMBER.exec(raw)
    if (match === null) continue
    const token = match[0]
    i += token.length - 1
    if (match[1] !== undefined || match[2] !== undefined) continue
    const digits = token.startsWith('-') ? token.length - 1 : token.length
    if (digits < 16) continue
    const value = Number(token)
    if (!Number.isFinite(value)) continue // overflow is reported on its own
    if (BigInt(token) !== BigInt(value)) return token
  }
  return undefined
}
