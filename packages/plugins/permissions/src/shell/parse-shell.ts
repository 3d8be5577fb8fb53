import { parseNested, parseScript } from './parse-commands.ts'
import { readHeredocText } from './read-expansion.ts'
import {
  fail,
  MAX_NESTING,
  ShellSyntaxError,
  type Notes,
  type Scanner,
  type ShellCommand,
} from './scanner.ts'

export type ParsedShell =
  | { readonly ok: true; readonly commands: readonly ShellCommand[] }
  | { readonly ok: false; readonly problem: string }

function scanner(s: string, depth: number, commands: ShellCommand[]): Scanner {
  if (depth > MAX_NESTING) fail(`substitutions nested deeper than ${MAX_NESTING}`)
  return {
    s,
    i: 0,
    depth,
    commands,
    heredocs: [],
    nested: parseNested,
    script: (text, inner) => parseScript(scanner(text, inner, commands)),
    heredoc: (text, inner, notes: Notes) => readHeredocText(scanner(text, inner, commands), notes),
  }
}

/**
 * Parses a bash command line (bash 5.2, non-interactive: no aliases, no history expansion, no
 * extglob) into the simple commands it can run, in every branch, loop and function body, inside
 * substitutions, backticks and here-documents. A text bash would reject, or that uses something
 * this parser does not model, is a problem (naming what), never a guess.
 */
export function parseShell(text: string): ParsedShell {
  const commands: ShellCommand[] = []
  try {
    parseScript(scanner(text, 0, commands))
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, problem: error.message }
    if (error instanceof RangeError) return { ok: false, problem: 'nesting too deep to read' }
    throw error
  }
  return { ok: true, commands }
}
