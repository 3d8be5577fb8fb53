/**
 * JSON text that can sit inside a `<script type="application/json">` element whatever strings it
 * holds: `<`, `>` and `&` are written as `\u003c`, `\u003e`, `\u0026`, so no `</script>`, `<!--` or
 * entity can appear and end or change the element; U+2028 and U+2029 are escaped too (they end a
 * line in older JavaScript parsers). `JSON.parse` reads the same value back.
 */
export function embedJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) return 'null'
  return text.replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
