import type { TimelineText } from './types.ts'

/** The longest text a tooltip shows of one value (arguments, a result, a late outcome). */
export const MAX_PREVIEW = 2_000

/**
 * `text` cut to at most `max` UTF-16 units at a code-point boundary (never half a surrogate pair),
 * with the number of code points left out.
 */
export function cutText(text: string, max: number = MAX_PREVIEW): TimelineText {
  if (text.length <= max) return { text, omitted: 0 }
  let end = max
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  let omitted = 0
  for (let i = end; i < text.length; i += 1) {
    const unit = text.charCodeAt(i)
    // a low surrogate after a high one belongs to the code point already counted
    if (unit >= 0xdc00 && unit <= 0xdfff && i > end) {
      const previous = text.charCodeAt(i - 1)
      if (previous >= 0xd800 && previous <= 0xdbff) continue
    }
    omitted += 1
  }
  return { text: text.slice(0, end), omitted }
}
