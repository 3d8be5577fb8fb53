/** JSON text of a value for a tooltip; `String(value)` for what JSON cannot show. */
export function jsonText(value: unknown, indent = 2): string {
  try {
    const text = JSON.stringify(value, null, indent)
    return text === undefined ? String(value) : text
  } catch {
    return '(not JSON)'
  }
}

/** The model's raw argument text, pretty-printed when it is JSON. */
export function argumentsText(raw: unknown): string {
  if (typeof raw !== 'string') return jsonText(raw)
  try {
    return jsonText(JSON.parse(raw))
  } catch {
    return raw
  }
}

/**
 * The text a tool result showed the model: its text blocks joined, an image as `[image …]`, audio as
 * `[audio …]` (never their base64 data), anything else as JSON. `content` is the `content` of a tool-result block: a string or an array of blocks.
 */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return jsonText(content)
  const parts: string[] = []
  for (const block of content as unknown[]) {
    const { type, text, mediaType } = (typeof block === 'object' && block !== null ? block : {}) as {
      type?: unknown
      text?: unknown
      mediaType?: unknown
    }
    if (type === 'text' && typeof text === 'string') parts.push(text)
    else if (type === 'image' || type === 'audio')
      parts.push(`[${type}${typeof mediaType === 'string' ? ` ${mediaType}` : ''}]`)
    else parts.push(jsonText(block))
  }
  return parts.join('\n')
}

/** What a body that outlived its result ended with (`tool/late-outcome` data.outcome). */
export function lateOutcomeText(outcome: unknown): string {
  const { kind, value, message } = (typeof outcome === 'object' && outcome !== null ? outcome : {}) as {
    kind?: unknown
    value?: unknown
    message?: unknown
  }
  if (kind === 'value') return value === undefined ? 'returned (no value)' : `returned ${jsonText(value)}`
  if (kind === 'error') return `threw: ${typeof message === 'string' ? message : jsonText(message)}`
  if (kind === 'abandoned') return 'abandoned (the batch failed under it)'
  return jsonText(outcome)
}
