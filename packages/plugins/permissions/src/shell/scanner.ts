import type { ShellWord } from './shell-word.ts'

/**
 * What the words of a command do not show by themselves, noted while reading it:
 * - `opaque`: why an allow cannot vouch for it (an expansion, a redirection to a file, …);
 * - `hidden`: why it may run code its text does not show (arithmetic on a variable, `${!x}`, …).
 */
export interface Notes {
  opaque: string | undefined
  hidden: string | undefined
}

export const note = (notes: Notes, kind: keyof Notes, why: string): void => {
  notes[kind] ??= why
}

/** One simple command the script runs (or a construct that stands for one: a redirected group). */
export interface ShellCommand {
  /** Its source text. */
  readonly text: string
  /** Leading `NAME=value` words. */
  readonly assignments: readonly ShellWord[]
  /** The command's words: its program and arguments. */
  readonly words: readonly ShellWord[]
  /** Filled in until the script is read: a here-document's body is read after the command. */
  readonly notes: Notes
}

/** A here-document whose body starts after the next newline of its command list. */
export interface PendingHeredoc {
  readonly delimiter: string
  /** The delimiter was quoted: the body is literal. */
  readonly quoted: boolean
  /** `<<-`: leading tabs are stripped. */
  readonly stripTabs: boolean
  readonly notes: Notes
}

/** The shell would reject the text, or it holds something this parser does not model. */
export class ShellSyntaxError extends Error {}

/** Deeper nesting of substitutions, groups and evaluated strings is refused rather than recursed into. */
export const MAX_NESTING = 64

/** The parser's position in one text, and what it has found so far. */
export interface Scanner {
  readonly s: string
  i: number
  depth: number
  /** Every simple command found, inner ones (substitutions) before the command holding them. */
  readonly commands: ShellCommand[]
  /** Here-documents of the command list being read, waiting for its next newline. */
  heredocs: PendingHeredoc[]
  /** Parses the command list of a `$(…)` / `<(…)` / `>(…)` up to its `)` (the parser's entry point). */
  readonly nested: (scanner: Scanner) => void
  /** Parses another text as a script (a backtick substitution's), adding its commands to `commands`. */
  readonly script: (text: string, depth: number) => void
  /** Reads a here-document body's expansions, adding their commands to `commands` and notes to `notes`. */
  readonly heredoc: (text: string, depth: number, notes: Notes) => void
}

export const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t'

/** Characters that end an unquoted word. */
export const isMeta = (c: string | undefined): boolean =>
  c === ' ' ||
  c === '\t' ||
  c === '\n' ||
  c === ';' ||
  c === '&' ||
  c === '|' ||
  c === '(' ||
  c === ')' ||
  c === '<' ||
  c === '>'

/**
 * Skips blanks and line continuations; a `#` where a word would start begins a comment, skipped up
 * to (not including) the end of its line. Returns the character it stopped at.
 */
export function skipBlanks(sc: Scanner): string | undefined {
  const { s } = sc
  for (;;) {
    const c = s[sc.i]
    if (c === ' ' || c === '\t') sc.i++
    else if (c === '\\' && s[sc.i + 1] === '\n') sc.i += 2
    else if (c === '#') {
      const end = s.indexOf('\n', sc.i)
      sc.i = end < 0 ? s.length : end
    } else return c
  }
}

/** The reserved word at the scanner, if the next word is exactly one (unquoted, ended by a blank or operator). */
export function peekReserved(sc: Scanner, words: ReadonlySet<string>): string | undefined {
  const { s, i } = sc
  let end = i
  while (end < s.length && !isMeta(s[end]) && end - i < 8) end++
  if (end === i || (end < s.length && !isMeta(s[end]))) return undefined
  const word = s.slice(i, end)
  return words.has(word) ? word : undefined
}

export function fail(what: string): never {
  throw new ShellSyntaxError(what)
}
