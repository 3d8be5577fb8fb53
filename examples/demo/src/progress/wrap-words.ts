import wrapAnsi from 'wrap-ansi'

/** Holds two words together while wrapping (a private-use character, one column wide, turned back into a space). */
const KEEP = '\ue000'

/**
 * Prose wrapped at word boundaries to `width` columns, keeping its leading spaces, the lines after
 * the first indented by `indent` spaces; a word longer than a line (a path) is left whole for the
 * terminal to fold, so it can still be copied in one piece. Without a width (not a terminal), the
 * text as it is.
 */
export function wrapWords(text: string, width: number | undefined, indent: number): string[] {
  if (width === undefined) return [text]
  const lead = /^ */.exec(text)![0]
  // a number stays on one line with the word it counts or measures: `2.4 s`, `1 TOOL_FAILED`
  const body = text.slice(lead.length).replace(/(\d) (?=\S)/g, `$1${KEEP}`)
  const [first = '', ...rest] = wrapAnsi(body, Math.max(8, width - lead.length), {
    hard: false,
    trim: true,
  }).split('\n')
  const lines =
    rest.length === 0
      ? [`${lead}${first}`]
      : [
          `${lead}${first}`,
          // the lines after the first are narrower by the indent: wrap what follows the first again
          ...wrapAnsi(rest.join(' '), Math.max(8, width - indent), { hard: false, trim: true })
            .split('\n')
            .map((line) => `${' '.repeat(indent)}${line}`),
        ]
  return lines.map((line) => line.replaceAll(KEEP, ' '))
}
