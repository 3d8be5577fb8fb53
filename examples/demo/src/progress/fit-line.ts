import sliceAnsi from 'slice-ansi'
import stringWidth from 'string-width'

/**
 * `text` cut to `width` terminal columns, ending in `…` when it did not fit. Colours (escape
 * sequences) take no columns and are kept closed; wide characters (CJK, emoji) take two. A line
 * that fits the terminal is never wrapped by it, so a redrawn frame has exactly as many rows as
 * lines, and nothing of it is left behind or scrolled away.
 */
export function fitLine(text: string, width: number): string {
  if (stringWidth(text) <= width) return text
  if (width <= 0) return ''
  return `${sliceAnsi(text, 0, width - 1)}…`
}
