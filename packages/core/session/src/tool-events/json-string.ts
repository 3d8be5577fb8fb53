/**
 * Strings at most this long are scanned before they are quoted; a longer one goes straight to
 * `JSON.stringify`, whose own scan is then the cheaper one (measured on Node 20: a scan of an id or
 * a tool name costs about half a `JSON.stringify` call, of 160 characters a third more).
 */
const SCANNED = 24

/**
 * `JSON.stringify(text)` for a string: the same text, escapes included. A short string without a
 * character JSON escapes (a quote, a backslash, a control character) and without surrogates (a lone
 * one is escaped, T58's lines are well-formed JSON) is quoted as it is, without the call;
 * anything else, and every long string, is `JSON.stringify`'s own.
 */
export function quoteJsonString(text: string): string {
  const length = text.length
  if (length > SCANNED) return JSON.stringify(text)
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
      return JSON.stringify(text)
    }
  }
  return `"${text}"`
}
