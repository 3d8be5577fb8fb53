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
