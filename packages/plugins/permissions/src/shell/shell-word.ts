/**
 * Stands for text the shell computes at run time (an expansion, a substitution, `~`): a character
 * no rule prefix holds, so a literal comparison never matches it and a pattern treats it as "any".
 */
export const HOLE = '\uE000'

/**
 * How many words a word of the source becomes once the shell has expanded it:
 * - `exact`: one word, and `value` is it;
 * - `one`: one word, with computed parts (`"$x"`, `~/bin`, `"a$(date)"`);
 * - `many`: any number of words (word splitting of an unquoted expansion, a glob, a brace list).
 */
export type WordFields = 'exact' | 'one' | 'many'

/** One word of a command, read as the shell reads it. */
export interface ShellWord {
  /** Its source text. */
  readonly text: string
  /** After quote removal, with `HOLE` where the shell computes the text. */
  readonly value: string
  readonly fields: WordFields
  /** Some of it was quoted or escaped. */
  readonly quoted: boolean
  /** It holds an expansion (`$x`, `${x}`, `$(…)`, backticks, `$((…))`, `<(…)`). */
  readonly expanded: boolean
  /** The text after its last `/` is fixed: as a program word, its name is known (`"$DIR"/rm` is `rm`). */
  readonly tailFixed: boolean
}

/** A word being read: the lexer appends to it. */
export interface WordBuilder {
  readonly start: number
  value: string
  quoted: boolean
  expanded: boolean
  /** An unquoted expansion (word splitting applies). */
  splits: boolean
  /** An unquoted glob or brace character (pathname or brace expansion may apply). */
  globs: boolean
  /** Index in `value` of the last unquoted glob or brace character, -1 when none. */
  lastGlob: number
  /** It holds a command, process or arithmetic substitution (code that runs). */
  substitutes: boolean
}

export function newWord(start: number): WordBuilder {
  return {
    start,
    value: '',
    quoted: false,
    expanded: false,
    splits: false,
    globs: false,
    lastGlob: -1,
    substitutes: false,
  }
}

/**
 * The word as the rest of the parser sees it. `braces`: bash brace-expands it (see
 * `braceExpands`), so it may become several words and its program name is not known.
 */
export function finishWord(word: WordBuilder, source: string, end: number, braces = false): ShellWord {
  const { value } = word
  const holes = value.includes(HOLE)
  const fields = word.splits || word.globs || braces ? 'many' : holes ? 'one' : 'exact'
  const slash = value.lastIndexOf('/')
  const tail = value.slice(slash + 1)
  const tailFixed = !word.splits && !braces && tail !== '' && !tail.includes(HOLE) && word.lastGlob <= slash
  return {
    text: source.slice(word.start, end),
    value,
    fields,
    quoted: word.quoted,
    expanded: word.expanded,
    tailFixed,
  }
}

/** A word made of fixed text (for words a rule or a wrapper adds, like xargs' default `echo`). */
export function literalWord(text: string): ShellWord {
  return { text, value: text, fields: 'exact', quoted: false, expanded: false, tailFixed: true }
}
