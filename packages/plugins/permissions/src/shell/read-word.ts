import { fail, isMeta, note, type Notes, type Scanner } from './scanner.ts'
import { braceExpands } from './brace-expands.ts'
import { readBacktick, readDollar, readDoubleQuoted, readProcessSubstitution } from './read-expansion.ts'
import { finishWord, HOLE, newWord, type ShellWord, type WordBuilder } from './shell-word.ts'
import { ASSIGNMENT_SO_FAR, startsTildePrefix, tildePrefixEnd } from './tilde-prefix.ts'

/**
 * How a word is read:
 * - `normal`: a word of a command, ended by a blank or an operator character;
 * - `regex`: the right side of `=~` in `[[ … ]]`, where `(`, `)` and `|` belong to the word;
 * - `delimiter`: a here-document delimiter, where `$` and backticks are plain characters.
 */
export type WordMode = 'normal' | 'regex' | 'delimiter'

/** A run of characters with no meaning to the word reader. */
const ORDINARY_RUN = /[^ \t\n;&|()<>'"\\$`*?[\]{},~]+/y

/**
 * Reads one word at the scanner, or returns undefined when none starts there (an operator, a
 * newline, the end). Substitutions inside it are parsed as they are met, so their commands are
 * found; what the word itself hides or makes opaque goes to `notes`.
 */
export function readWord(
  sc: Scanner,
  notes: Notes,
  mode: WordMode = 'normal',
  options: { readonly assignment?: boolean } = {},
): ShellWord | undefined {
  const { s } = sc
  const b = newWord(sc.i)
  let braceOpen = false
  let braceSeparated = false
  for (;;) {
    const c = s[sc.i]
    if (c === undefined) break
    if (isMeta(c)) {
      if ((c === '<' || c === '>') && s[sc.i + 1] === '(' && mode === 'normal') {
        readProcessSubstitution(sc, b)
        continue
      }
      if ((c === '<' || c === '>') && s[sc.i + 1] === '(' && mode === 'delimiter') {
        readDelimiterSubstitution(sc, b)
        continue
      }
      if (mode === 'regex' && (c === '(' || c === ')' || c === '|')) {
        b.value += c
        sc.i++
        continue
      }
      if (c === '(' && options.assignment === true && ASSIGNMENT_SO_FAR.test(s.slice(b.start, sc.i))) {
        readCompoundValue(sc, b, notes)
        continue
      }
      break
    }
    switch (c) {
      case '\\': {
        const next = s[sc.i + 1]
        if (next === '\n') sc.i += 2
        else if (next === undefined) {
          b.value += '\\'
          sc.i++
        } else {
          b.value += next
          b.quoted = true
          sc.i += 2
        }
        break
      }
      case "'": {
        const close = s.indexOf("'", sc.i + 1)
        if (close < 0) fail('an unterminated single quote')
        b.value += s.slice(sc.i + 1, close)
        b.quoted = true
        sc.i = close + 1
        break
      }
      case '"':
        sc.i++
        b.quoted = true
        readDoubleQuoted(sc, b, notes)
        break
      case '$':
        if (mode === 'delimiter') {
          if (s[sc.i + 1] === "'" || s[sc.i + 1] === '"')
            fail('a here-document delimiter with "$\'" or "$\\""')
          b.value += '$'
          sc.i++
        } else readDollar(sc, b, notes, 'unquoted')
        break
      case '`':
        if (mode === 'delimiter') fail('a here-document delimiter with a backtick')
        readBacktick(sc, b, 'unquoted')
        break
      case '~':
        if (
          mode === 'normal' &&
          startsTildePrefix(s, b.start, sc.i) &&
          tildePrefixEnd(s, sc.i) !== undefined
        ) {
          // A tilde prefix: everything up to the first "/" — a user's home directory, or $PWD
          // (`~+`), $OLDPWD (`~-`), a directory of the stack (`~2`), or itself when no such user.
          const end = tildePrefixEnd(s, sc.i)!
          // Left as it is when no user has that name, `~*` and `~?` are then patterns.
          const globs = /[*?[]/.test(s.slice(sc.i, end))
          sc.i = end
          b.value += HOLE
          if (globs) {
            b.globs = true
            b.lastGlob = b.value.length
          }
        } else {
          b.value += c
          sc.i++
        }
        break
      case '*':
      case '?':
      case '[':
        if (mode !== 'delimiter') {
          b.globs = true
          b.lastGlob = b.value.length
        }
        b.value += c
        sc.i++
        break
      case '{':
        braceOpen = true
        b.value += c
        sc.i++
        break
      case ',':
        if (braceOpen) braceSeparated = true
        b.value += c
        sc.i++
        break
      case '}':
        if (braceOpen && (braceSeparated || b.value.includes('..')) && mode !== 'delimiter') {
          b.globs = true
          b.lastGlob = b.value.length
        }
        b.value += c
        sc.i++
        break
      default: {
        ORDINARY_RUN.lastIndex = sc.i
        if (ORDINARY_RUN.test(s)) {
          b.value += s.slice(sc.i, ORDINARY_RUN.lastIndex)
          sc.i = ORDINARY_RUN.lastIndex
        } else {
          // `]`: a glob character only after `[`, which already marked the word.
          b.value += c
          sc.i++
        }
      }
    }
  }
  if (sc.i === b.start) return undefined
  const text = s.slice(b.start, sc.i)
  const braces = mode !== 'delimiter' && text.includes('{') && braceExpands(text)
  if (braces && b.substitutes) {
    note(
      notes,
      'hidden',
      'a brace expansion that reaches into a substitution (bash copies and cuts its text)',
    )
  }
  return finishWord(b, s, sc.i, braces)
}

/**
 * `<(…)` or `>(…)` in a here-document delimiter: bash reads it as part of the word, as text, and
 * never runs it (`x <<z<(ls) a` runs `x a` and waits for a line `z<(ls)`). Its extent is found by
 * parsing it; the commands found are dropped. bash keeps quotes inside it in the delimiter, unlike
 * anywhere else: such a delimiter is refused rather than guessed.
 */
function readDelimiterSubstitution(sc: Scanner, b: WordBuilder): void {
  const start = sc.i
  const found = sc.commands.length
  sc.i += 2
  sc.nested(sc)
  sc.commands.length = found
  const text = sc.s.slice(start, sc.i)
  if (/['"\\]/.test(text)) fail('a here-document delimiter with quotes inside "<(…)"')
  b.value += text
}

/** `NAME=(…)`: the elements of an array assignment. */
function readCompoundValue(sc: Scanner, b: WordBuilder, notes: Notes): void {
  const { s } = sc
  sc.i++
  for (;;) {
    const c = s[sc.i]
    if (c === undefined) fail('an unterminated array assignment "=("')
    if (c === ')') {
      sc.i++
      break
    }
    if (c === ' ' || c === '\t' || c === '\n' || (c === '\\' && s[sc.i + 1] === '\n')) {
      sc.i += c === '\\' ? 2 : 1
      continue
    }
    if (c === '#') {
      const end = s.indexOf('\n', sc.i)
      sc.i = end < 0 ? s.length : end
      continue
    }
    const element = readWord(sc, notes)
    if (element === undefined) fail(`an unexpected "${c}" in an array assignment`)
    if (/^\[/.test(element.text) && !/^\[\d+\]=/.test(element.text)) {
      note(notes, 'hidden', 'an array subscript the shell evaluates')
    }
  }
  b.value += HOLE
  b.expanded = true
}
