/** A position inside a value being walked; `null` is the root (`$`). Built lazily, only for messages. */
export type JsonLocation = { readonly parent: JsonLocation; readonly key: string | number } | null

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** Renders a location JSONPath-style: `$`, `$.a[2].b`, `$["odd key"]`. */
export function formatJsonPath(location: JsonLocation): string {
  const segments: string[] = []
  for (let at = location; at !== null; at = at.parent) {
    const { key } = at
    segments.push(
      typeof key === 'number' ? `[${key}]` : IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`,
    )
  }
  return `$${segments.reverse().join('')}`
}
