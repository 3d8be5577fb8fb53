import { HOLE, type ShellWord } from '../shell/shell-word.ts'
import type { CommandPart } from './command-part.ts'
import { splitCommand } from './split-command.ts'

/** Whether `literal` could be what a word with computed parts (`HOLE`) turns into. */
export function couldBe(value: string, literal: string): boolean {
  const segments = value.split(HOLE)
  if (segments.length === 1) return value === literal
  const head = segments[0]!
  const tail = segments.at(-1)!
  if (!literal.startsWith(head) || !literal.endsWith(tail) || literal.length < head.length + tail.length)
    return false
  let at = head.length
  const end = literal.length - tail.length
  for (let k = 1; k < segments.length - 1; k++) {
    const found = literal.indexOf(segments[k]!, at)
    if (found < 0 || found + segments[k]!.length > end) return false
    at = found + segments[k]!.length
  }
  return true
}

/**
 * Whether the words could start with `prefix` once the shell has expanded them (all of them, with
 * `exact`): a computed part could be any text, and a word that becomes any number of words
 * (`$FLAGS`, a glob) could be the rest of the prefix.
 */
export function couldStartWith(
  words: readonly ShellWord[],
  prefix: readonly string[],
  exact: boolean,
): boolean {
  for (let k = 0; k < prefix.length; k++) {
    const word = words[k]
    if (word === undefined) return false
    if (word.fields === 'many') return true
    if (word.fields === 'exact' ? word.value !== prefix[k] : !couldBe(word.value, prefix[k]!)) return false
  }
  return !exact || words.slice(prefix.length).every((w) => w.fields === 'many')
}

/**
 * Whether a command part is covered by a rule's prefix (its words, as `splitCommand` reads them).
 * - `strict` (allow rules): the part is neither opaque nor hidden, and its words as written start
 *   with the prefix (`./git` is not `git`; `sudo git` is not `git`).
 * - otherwise (deny and ask rules): a hidden part matches every prefix; else some reading of it
 *   (the command itself, or what a wrapper runs, with the program reduced to its name) could
 *   start with the prefix once expanded.
 * With `exact` the words must be exactly the prefix instead.
 */
export function matchesCommand(
  part: CommandPart,
  prefix: readonly string[],
  options: { readonly strict: boolean; readonly exact: boolean },
): boolean {
  if (options.strict) {
    if (part.opaque !== undefined || part.hidden !== undefined) return false
    const words = part.command
    const own =
      (options.exact ? words.length === prefix.length : words.length >= prefix.length) &&
      prefix.every((p, i) => words[i]!.fields === 'exact' && words[i]!.value === p)
    // An exact allow of the command that runs this code string covers the code's commands too.
    if (!own && options.exact && part.origin !== undefined)
      return matchesCommand(part.origin, prefix, options)
    return own
  }
  if (part.hidden !== undefined) return true
  for (const reading of part.readings) if (couldStartWith(reading.words, prefix, options.exact)) return true
  return false
}

/** The words of a command prefix written in a rule, or the problem with it. */
export function parseCommandPrefix(
  text: string,
):
  | { readonly ok: true; readonly words: readonly string[] }
  | { readonly ok: false; readonly problem: string } {
  if (/:\*\s*$/.test(text)) {
    return {
      ok: false,
      problem: `write the prefix without ":*" (every prefix already covers what follows it), or use the Claude Code syntax: { "rule": ${JSON.stringify(`Bash(${text.trim()})`)} }`,
    }
  }
  if (/[*?]/.test(text)) {
    return { ok: false, problem: 'a command prefix is literal words; it has no glob syntax ("*", "?")' }
  }
  const split = splitCommand(text)
  if (!split.ok)
    return { ok: false, problem: `a command prefix must be valid shell words, but ${split.problem}` }
  for (const part of split.parts) {
    const computed = part.command.find((w) => w.fields !== 'exact')
    const why =
      part.opaque ??
      part.hidden ??
      (computed === undefined ? undefined : `a word the shell expands (${JSON.stringify(computed.text)})`)
    if (why !== undefined)
      return { ok: false, problem: `a command prefix must be plain words (it has ${why})` }
  }
  if (split.parts.length !== 1) {
    return {
      ok: false,
      problem:
        split.parts.length === 0
          ? 'a command prefix must have at least one word'
          : 'a command prefix must be one simple command (it has a separator such as ";", "&&" or "|")',
    }
  }
  const part = split.parts[0]!
  return { ok: true, words: part.command.map((w) => w.value) }
}
