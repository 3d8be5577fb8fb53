import { HOLE, type ShellWord } from '../shell/shell-word.ts'

/**
 * One element of a compiled pattern or of a command rendered for matching: a character, a word
 * boundary between two words, or "any text" (a `*` of the pattern; a part of a command the shell
 * computes).
 */
const ANY = -1
const BOUNDARY = -2
type Item = number

/** A `Bash(…)` specifier, compiled. */
export interface BashPattern {
  readonly text: string
  /** No `*` at all: the command must be exactly this (also the only form that may allow exec wrappers). */
  readonly literal: boolean
  /** The variants the pattern stands for (a trailing ` *` also matches nothing after a word boundary). */
  readonly variants: readonly (readonly Item[])[]
}

/** Longer commands are not compared character by character: deny rules match them, allow rules do not. */
export const MAX_MATCHED_LENGTH = 8192

/**
 * Compiles the specifier of a Claude Code `Bash(…)` rule, as its documentation describes them
 * (https://code.claude.com/docs/en/permissions#wildcard-patterns):
 * - `*` matches any text, spaces included, at any position (`git * main`, `* --version`);
 * - a trailing ` *` (space, star) enforces a word boundary and may match nothing: `ls *` covers
 *   `ls` and `ls -la`, not `lsof`; without the space (`ls*`) it covers all three;
 * - a trailing `:*` is the legacy spelling of a trailing ` *` (`npm run test:*` is `npm run test *`);
 *   a `:*` anywhere else is a literal colon and star;
 * - no `*`: exactly that command.
 * Blanks between words are word boundaries; quotes group a word with blanks in it and are removed,
 * as the shell removes them; `\*` is a literal star.
 */
export function compileBashPattern(specifier: string): BashPattern | { readonly problem: string } {
  let text = specifier
  if (text.endsWith(':*')) text = `${text.slice(0, -2)} *`
  const items: Item[] = []
  let boundary = false
  let quote: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (c === '*' && quote === '"') items.push(ANY)
      else items.push(c.charCodeAt(0))
      continue
    }
    if (c === ' ' || c === '\t') {
      boundary = items.length > 0
      continue
    }
    if (boundary) {
      items.push(BOUNDARY)
      boundary = false
    }
    if (c === "'" || c === '"') quote = c
    else if (c === '\\' && i + 1 < text.length) items.push(text.charCodeAt(++i))
    else if (c === '*') items.push(ANY)
    else if (c === HOLE) return { problem: 'a pattern must not contain U+E000' }
    else items.push(c.charCodeAt(0))
  }
  if (quote !== undefined)
    return { problem: `an unterminated ${quote} quote in ${JSON.stringify(specifier)}` }
  if (items.length === 0) return { problem: 'an empty command pattern' }
  const literal = !items.includes(ANY)
  const variants: Item[][] = [items]
  if (items.length >= 2 && items.at(-1) === ANY && items.at(-2) === BOUNDARY)
    variants.push(items.slice(0, -2))
  return { text: specifier, literal, variants }
}

/** A command's words as matching sees them: characters, boundaries, and computed text as "any". */
function render(words: readonly ShellWord[]): Item[] | undefined {
  const items: Item[] = []
  for (const word of words) {
    if (items.length > 0) items.push(BOUNDARY)
    for (let i = 0; i < word.value.length; i++) {
      const c = word.value[i]!
      items.push(c === HOLE ? ANY : c.charCodeAt(0))
    }
    // A word that becomes any number of words may also hold boundaries.
    if (word.fields === 'many') items.push(ANY)
    if (items.length > MAX_MATCHED_LENGTH) return undefined
  }
  return items
}

/**
 * Whether some text matches both `pattern` and `subject` (each an item list where ANY is any
 * text): the product of the two automata, explored position pair by position pair. With a
 * subject that holds no ANY this is plain wildcard matching.
 */
function intersects(pattern: readonly Item[], subject: readonly Item[]): boolean {
  const width = subject.length + 1
  const seen = new Uint8Array((pattern.length + 1) * width)
  const stack: number[] = [0, 0]
  while (stack.length > 0) {
    const j = stack.pop()!
    const i = stack.pop()!
    const key = i * width + j
    if (seen[key] === 1) continue
    seen[key] = 1
    if (i === pattern.length && j === subject.length) return true
    const p = pattern[i]
    const s = subject[j]
    // "Any" may match nothing.
    if (p === ANY) stack.push(i + 1, j)
    if (s === ANY) stack.push(i, j + 1)
    // Both consume one common character (or boundary).
    if (p !== undefined && s !== undefined) {
      if (p === ANY) {
        if (s !== ANY) stack.push(i, j + 1)
      } else if (s === ANY) stack.push(i + 1, j)
      else if (p === s) stack.push(i + 1, j + 1)
    }
  }
  return false
}

/** Whether the words could match the pattern once the shell has expanded them (deny and ask rules). */
export function couldMatchPattern(pattern: BashPattern, words: readonly ShellWord[]): boolean {
  const subject = render(words)
  if (subject === undefined) return true
  return pattern.variants.some((variant) => intersects(variant, subject))
}

/** Whether the words, which must be fixed, match the pattern (allow rules). */
export function matchesPattern(pattern: BashPattern, words: readonly ShellWord[]): boolean {
  if (words.some((w) => w.fields !== 'exact')) return false
  const subject = render(words)
  if (subject === undefined) return false
  return pattern.variants.some((variant) => intersects(variant, subject))
}
