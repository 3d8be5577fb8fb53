/** The file name the sandbox reports in stack traces of the program. */
export const PROGRAM_FILE = 'program.js'

// The header shares the program's first line, so line numbers in errors are the program's own
// (columns on that line are shifted by its length, which `describePosition` takes off again).
const HEADER = '(async function () {'
const FOOTER = '\n})'

/**
 * Turns a program (the body of an async function) into a script whose completion value is that
 * async function. A TypeScript program is wrapped first and then stripped of its types, which
 * keeps every position (host/strip-types.ts).
 */
export function wrapProgram(program: string): string {
  return `${HEADER}${program}${FOOTER}`
}

/** The line of the wrapper's closing `})`, after the program's last line. */
export function footerLine(wrapped: string): number {
  let lines = 1
  for (let i = wrapped.indexOf('\n'); i !== -1; i = wrapped.indexOf('\n', i + 1)) lines++
  return lines
}

/**
 * ` (line L, column C)` for a 1-based position in the wrapped program, as the program's own line
 * and column; ` (at the end of the program)` for the wrapper's closing line (where a program that
 * stops in the middle of an expression fails); empty for anything that is not a position (a stack
 * trace the program rewrote). `footer` is `footerLine` of the wrapped program.
 */
export function describePosition(line: unknown, column: unknown, footer: number): string {
  if (!Number.isSafeInteger(line) || !Number.isSafeInteger(column)) return ''
  const l = line as number
  const c = column as number
  if (l < 1 || c < 1 || l > footer) return ''
  if (l === footer) return ' (at the end of the program)'
  return ` (line ${l}, column ${l === 1 ? Math.max(c - HEADER.length, 1) : c})`
}
