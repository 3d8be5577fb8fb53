import { parseShell } from '../shell/parse-shell.ts'
import { analyzeCommand } from './analyze-command.ts'
import type { CommandPart } from './command-part.ts'

export type { CommandPart, CommandReading } from './command-part.ts'

export type SplitCommand =
  | { readonly ok: true; readonly parts: readonly CommandPart[] }
  | { readonly ok: false; readonly problem: string }

/** Code strings run by code strings (`eval "eval '…'"`) are read this deep, no deeper. */
const MAX_CODE_DEPTH = 16
/** A command line longer than this is not read (it fails closed). */
export const MAX_COMMAND_LENGTH = 1024 * 1024

class Unreadable extends Error {}

function split(command: string, depth: number, out: CommandPart[], origin?: CommandPart): void {
  const parsed = parseShell(command)
  if (!parsed.ok) throw new Unreadable(parsed.problem)
  for (const shellCommand of parsed.commands) {
    const analyzed = analyzeCommand(shellCommand, origin)
    if ('problem' in analyzed) throw new Unreadable(analyzed.problem)
    out.push(analyzed.part)
    for (const { code } of analyzed.nested) {
      if (depth >= MAX_CODE_DEPTH) throw new Unreadable(`code strings nested deeper than ${MAX_CODE_DEPTH}`)
      try {
        split(code.word.value, depth + 1, out, analyzed.part)
      } catch (error) {
        if (error instanceof Unreadable)
          throw new Unreadable(`${error.message} in the code ${code.runner} runs`)
        throw error
      }
    }
  }
}

/**
 * Splits a shell command line into the simple commands it can run, as bash 5.2 reads it: every
 * command of every list, pipeline, branch, loop and function body, inside `$(…)`, backticks
 * (nested ones too), `<(…)`, `>(…)`, here-documents and `${…}`, and inside the code strings that
 * `eval`, `bash -c`, `sh -c`, `trap`, `mapfile -C`, `watch` and `flock -c` run. Comments are
 * comments. A line bash would reject, or that uses what this reader does not model, is a
 * problem, never a guess.
 */
export function splitCommand(command: string): SplitCommand {
  if (command.length > MAX_COMMAND_LENGTH) {
    return { ok: false, problem: `it is longer than ${MAX_COMMAND_LENGTH} characters` }
  }
  const parts: CommandPart[] = []
  try {
    split(command, 0, parts)
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, problem: `it has ${error.message}` }
    throw error
  }
  return { ok: true, parts }
}
