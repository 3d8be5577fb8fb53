/**
 * `text` cut to at most `max` UTF-16 code units (ellipsis included), never inside a surrogate
 * pair, with the original length named when anything was cut. Every value the pipeline echoes
 * from outside (a tool name the model made up, a preview of its arguments, a call id) goes through
 * here, so a 100,000-character name cannot make a 100,000-character message.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const suffix = `… (${text.length} chars)`
  let end = Math.max(0, max - suffix.length)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end-- // a high surrogate whose pair would be cut off
  return `${text.slice(0, end)}${suffix}`
}

/** Longest echoed name (tool names are at most 64 characters; anything longer is made up). */
export const MAX_ECHOED_NAME = 100
/** Longest echoed preview of an argument string or a call id. */
export const MAX_ECHOED_PREVIEW = 200

/** `tool "name" (call id)` for logs and errors, both parts clipped. */
export function callRef(toolName: string, callId: string): string {
  return `tool "${clip(toolName, MAX_ECHOED_NAME)}" (call ${clip(callId, MAX_ECHOED_PREVIEW)})`
}

/** Validation issues as one line, each part clipped (a path may echo a key the model made up). */
export function formatIssues(issues: readonly { readonly path: string; readonly message: string }[]): string {
  const line = issues
    .map((issue) => `${clip(issue.path, MAX_ECHOED_PREVIEW)}: ${clip(issue.message, 500)}`)
    .join('; ')
  return clip(line, 2_000)
}

/**
 * `text` cut so that its UTF-8 encoding is at most `maxBytes`, suffix included, never inside a
 * code point, the suffix naming the original size (no suffix when even it would not fit). A
 * failure's message is held to `maxResultBytes` this way (T14): a body that throws a 5 MB message
 * keeps its code and the start of what it said.
 */
export function clipUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text
  const size = Buffer.byteLength(text, 'utf8')
  if (size <= maxBytes) return text
  const suffix = `… (cut from ${size} bytes to the ${maxBytes}-byte limit, maxResultBytes)`
  const suffixBytes = Buffer.byteLength(suffix, 'utf8')
  const budget = suffixBytes <= maxBytes ? maxBytes - suffixBytes : maxBytes
  let used = 0
  let end = 0
  while (end < text.length) {
    const unit = text.charCodeAt(end)
    const pair =
      unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1))
    // a lone surrogate is encoded as U+FFFD: three bytes
    const width = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3
    if (used + width > budget) break
    used += width
    end += pair ? 2 : 1
  }
  return suffixBytes <= maxBytes ? `${text.slice(0, end)}${suffix}` : text.slice(0, end)
}

const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff
