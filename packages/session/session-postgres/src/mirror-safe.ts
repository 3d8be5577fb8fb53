// A `\u0000` escape, or a `\u` escape of a surrogate, preceded by an even number of backslashes
// (so it is an escape and not the text "\\u0000"). JSON.stringify writes lone surrogates as such
// escapes and pairs as the characters themselves, so any surrogate escape in its output is lone.
const UNREPRESENTABLE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i

/**
 * Whether PostgreSQL's `jsonb` can hold the JSON text `json` (the output of `JSON.stringify`):
 * jsonb refuses `\u0000` and unpaired surrogates, which are valid JSON and valid JavaScript strings.
 */
export function jsonbCanHold(json: string): boolean {
  return !json.includes('\\u') || !UNREPRESENTABLE.test(json)
}

/** A string as a `text` column can hold it: NUL and lone surrogates become U+FFFD (for query copies only). */
export function textCopy(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value
}
