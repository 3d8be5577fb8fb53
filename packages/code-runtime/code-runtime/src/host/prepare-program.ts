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
  | { readonly ok: false; readonly kind: 'exception' | 'memory'; readonly message: string }

/**
 * The script for a program: JavaScript wrapped as it is (the sandbox parses it), TypeScript
 * wrapped and stripped of its types by swc, a parser that keeps positions (never a regex). A
 * TypeScript syntax error is reported with the program's line and column; a program nested too
 * deeply for the stripper fails with kind `memory`, as it would in the engine. Rejects only when
 * the stripper cannot run.
 */
export async function prepareProgram(program: string, language: CodeLanguage): Promise<PreparedProgram> {
  const wrapped = wrapProgram(program)
  if (language === 'javascript') return { ok: true, source: wrapped, positions: true }
  const stripped = await stripTypes(wrapped)
  if (stripped.ok) return stripped
  switch (stripped.reason) {
    case 'syntax': {
      const where = describePosition(stripped.line, stripped.column, footerLine(wrapped))
      return { ok: false, kind: 'exception', message: `SyntaxError: ${capMessage(stripped.message)}${where}` }
    }
    case 'too-deep':
      return {
        ok: false,
        kind: 'memory',
        message: `The program nests too deeply for the TypeScript type stripper (${capMessage(stripped.message)})`,
      }
    case 'broken':
      return {
        ok: false,
        kind: 'exception',
        message: `The TypeScript type stripper failed on the program: ${capMessage(stripped.message)}`,
      }
    default:
      return stripped.reason satisfies never
  }
}
