/**
 * Opt-in captures (arguments, results, error messages) as text of at most `maxBytes` UTF-8 bytes.
 * A longer text is cut at a code point boundary (never half a surrogate pair) and ends with a
 * marker giving its full size, so a reader knows it was cut and by how much.
 */
export function clipText(text: string, maxBytes: number): string {
  // every UTF-16 code unit is at most 3 UTF-8 bytes: short texts need no walk
  if (text.length * 3 <= maxBytes) return text
  const total = utf8Length(text)
  if (total <= maxBytes) return text
  const marker = `…[truncated, ${total} bytes]`
  const room = maxBytes - utf8Length(marker)
  let bytes = 0
  let end = 0
  while (end < text.length) {
    const unit = text.charCodeAt(end)
    const pair = unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3
    if (bytes + size > room) break
    bytes += size
    end += pair ? 2 : 1
  }
  return text.slice(0, end) + marker
}

function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/**
 * `value` as capped JSON text. Arguments may hold what a schema transformed (a `Date`, a `URL`):
 * `JSON.stringify` gives their JSON form. A value it cannot write (a BigInt, a cycle, a getter
 * that throws) is described, never thrown.
 */
export function captureJson(value: unknown, maxBytes: number): string {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    return '[not serializable as JSON]'
  }
  return clipText(text ?? 'undefined', maxBytes)
}
