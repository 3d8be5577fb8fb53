import { capMessage } from '../text.ts'
import type { CodeLanguage } from '../types.ts'
import { describePosition, footerLine, wrapProgram } from '../wrap-program.ts'
import { stripTypes } from './strip-types.ts'

export type PreparedProgram =
  | {
      readonly ok: true
      /** The script the sandbox evaluates (see wrap-program.ts). */
      readonly source: string
      /** Its lines and columns are the program's own (see `StrippedProgram`). */
      readonly positions: boolean
    }
  | { readonly ok: false; readonly message: string }

/**
 * The script for a program: JavaScript wrapped as it is (the sandbox parses it), TypeScript
 * wrapped and stripped of its types by swc, a parser that keeps positions (never a regex). A
 * TypeScript syntax error is reported with the program's line and column. Rejects only when the
 * stripper cannot run.
 */
export async function prepareProgram(program: string, language: CodeLanguage): Promise<PreparedProgram> {
  const wrapped = wrapProgram(program)
  if (language === 'javascript') return { ok: true, source: wrapped, positions: true }
  const stripped = await stripTypes(wrapped)
  if (stripped.ok) return stripped
  return {
    ok: false,
    message: `SyntaxError: ${capMessage(stripped.message)}${describePosition(stripped.line, stripped.column, footerLine(wrapped))}`,
  }
}
