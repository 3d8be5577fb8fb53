import type { ShellCommand } from '../shell/scanner.ts'
import type { ShellWord } from '../shell/shell-word.ts'
import { analyzeProgram, BUILTINS, type CodeString } from './analyze-program.ts'
import type { CommandPart, CommandReading } from './command-part.ts'
import { WRAPPERS } from './unwrap-command.ts'

/** A string of code whose commands are parts too, and what ran it. */
export interface NestedCode {
  readonly code: CodeString
  /** The reading that runs it, for messages. */
  readonly via: readonly string[]
}

/** More wrappers than this in one command are not looked through. */
const MAX_CHAIN = 32

/**
 * Shell syntax that dash (`sh` on Debian) reads differently from bash, or not at all (for dash,
 * `time` is the program /usr/bin/time, not a reserved word).
 */
const BASH_ONLY = /\$'|\(\(|\[\[|<\(|>\(|\|&|&>|<<<|\$\[|;;&|;&|\bfunction\b|\bselect\b|\bcoproc\b|\btime\b/

const display = (word: ShellWord): string => (word.fields === 'exact' ? word.value : word.text)

/** The program's name as rules compare it: its last path segment. */
const named = (word: ShellWord): ShellWord => {
  const name = word.value.slice(word.value.lastIndexOf('/') + 1)
  return name === word.value ? word : { ...word, value: name }
}

/**
 * Reads one simple command: why it is opaque or hidden, the readings rules compare (looking
 * through wrappers, `find -exec` and the like), and the code strings it runs (`eval 'x'`,
 * `bash -c 'x'`, `trap 'x' EXIT`), which the caller splits into parts of their own.
 * Returns a problem when the command changes how later text is parsed.
 */
export function analyzeCommand(
  command: ShellCommand,
  origin?: CommandPart,
): { readonly part: CommandPart; readonly nested: readonly NestedCode[] } | { readonly problem: string } {
  const { assignments, words, notes } = command
  let hidden = notes.hidden
  const expandedWord = words.find((w) => w.expanded) ?? assignments.find((w) => w.expanded)
  const opaque =
    notes.opaque ??
    (assignments.length > 0 ? 'an environment assignment' : undefined) ??
    (expandedWord !== undefined
      ? `a word the shell computes (${JSON.stringify(expandedWord.text)})`
      : undefined)
  const readings: CommandReading[] = []
  const nested: NestedCode[] = []
  const pending: CommandReading[] =
    words.length > 0 ? [{ words, via: [], certain: true, changes: undefined, appended: false }] : []
  while (pending.length > 0 && readings.length < MAX_CHAIN) {
    const chain = pending.shift()!
    let current: CommandReading = chain
    for (let step = 0; step < MAX_CHAIN; step++) {
      const program = current.words[0]!
      if (!program.tailFixed) {
        hidden ??= `the shell computes the program (${JSON.stringify(program.text)})`
        break
      }
      const reading: CommandReading = {
        words: [named(program), ...current.words.slice(1)],
        via: current.via,
        certain: current.certain,
        changes: current.changes,
        appended: current.appended,
      }
      readings.push(reading)
      const name = reading.words[0]!.value
      const path = program.value.includes('/')
      const effects = analyzeProgram(name, reading.words, { path })
      if (effects.unreadable !== undefined) return { problem: effects.unreadable }
      hidden ??= effects.hidden
      for (const code of effects.code ?? []) nested.push({ code, via: [...current.via, name] })
      for (const inner of effects.commands ?? []) {
        pending.push({
          words: inner,
          via: [...current.via, name],
          certain: current.certain,
          changes: current.changes,
          appended: false,
        })
      }
      const unwrap = path && BUILTINS.has(name) ? undefined : WRAPPERS.get(name)
      if (unwrap === undefined) break
      const inner = unwrap(reading.words)
      if (inner.kind === 'none') break
      if (inner.kind === 'computed') {
        hidden ??= `${name}: ${inner.why}`
        break
      }
      if (inner.kind === 'code') {
        nested.push({
          code: { word: inner.code, dialect: 'posix', runner: name },
          via: [...current.via, name],
        })
        break
      }
      current = {
        words: inner.words,
        via: [...current.via, name],
        certain: current.certain && inner.certain,
        changes: current.changes ?? inner.changes,
        appended: inner.appended === true,
      }
    }
  }
  for (const { code } of nested) {
    if (code.word.fields !== 'exact') hidden ??= `${code.runner} runs code the shell computes`
    else if (code.dialect === 'posix' && BASH_ONLY.test(code.word.value)) {
      hidden ??= `${code.runner} runs code that sh reads differently from bash`
    }
  }
  const part: CommandPart = {
    text: command.text,
    words: [...assignments, ...words].map(display),
    opaque,
    hidden,
    command: words,
    readings,
    ...(origin === undefined ? {} : { origin }),
  }
  return { part, nested: nested.filter(({ code }) => code.word.fields === 'exact') }
}
