import { fail, MAX_NESTING, note, ShellSyntaxError, type Notes, type Scanner } from './scanner.ts'
import { readAnsiC } from './ansi-c.ts'
import { HOLE, newWord, type WordBuilder } from './shell-word.ts'

// The expansions inside a word (`$x`, `${…}`, `$(…)`, `$((…))`, backticks, `<(…)`) and inside
// double quotes and here-documents: read as bash reads them, so the commands they run are found and
// what they hide is noted. One file because these readers call each other (`${x:-"$(…)"}`).

/** Where a `$`, a backtick or a `${…}` sits, which decides how its text is read. */
export type Context = 'unquoted' | 'dquote' | 'heredoc'

const IDENTIFIER_START = /[A-Za-z_]/
const IDENTIFIER = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/
/** Inside double quotes, a run of characters with no meaning. */
const DQUOTE_RUN = /[^"\\$`]+/y

const inc = (sc: Scanner, what: string): void => {
  if (++sc.depth > MAX_NESTING) fail(`${what} nested deeper than ${MAX_NESTING}`)
}

/** Marks a computed part of a word; unquoted, its result is split into fields. */
export function appendHole(b: WordBuilder, context: Context, splitsEvenQuoted = false): void {
  b.value += HOLE
  b.expanded = true
  if (context === 'unquoted' || splitsEvenQuoted) b.splits = true
}

/** After an opening `"`: up to and including the closing one. */
export function readDoubleQuoted(sc: Scanner, b: WordBuilder, notes: Notes): void {
  const { s } = sc
  for (;;) {
    const c = s[sc.i]
    if (c === undefined) fail('an unterminated double quote')
    if (c === '"') {
      sc.i++
      return
    }
    if (c === '\\') {
      const next = s[sc.i + 1]
      if (next === '\n') sc.i += 2
      else if (next === '$' || next === '`' || next === '"' || next === '\\') {
        b.value += next
        sc.i += 2
      } else {
        b.value += '\\'
        sc.i++
      }
    } else if (c === '$') readDollar(sc, b, notes, 'dquote')
    else if (c === '`') readBacktick(sc, b, 'dquote')
    else {
      DQUOTE_RUN.lastIndex = sc.i
      DQUOTE_RUN.test(s)
      b.value += s.slice(sc.i, DQUOTE_RUN.lastIndex)
      sc.i = DQUOTE_RUN.lastIndex
    }
  }
}

/**
 * The text of a here-document body whose delimiter was unquoted: like double quotes, except that
 * `"` is an ordinary character. Returns what the body's expansions hide.
 */
export function readHeredocText(sc: Scanner, notes: Notes): void {
  const { s } = sc
  const b = newWord(sc.i)
  while (sc.i < s.length) {
    const c = s[sc.i]!
    if (c === '\\') {
      const next = s[sc.i + 1]
      sc.i += next === '$' || next === '`' || next === '\\' || next === '\n' ? 2 : 1
    } else if (c === '$') readDollar(sc, b, notes, 'heredoc')
    else if (c === '`') readBacktick(sc, b, 'heredoc')
    else sc.i++
  }
}

/** At a `$`: an expansion, or a plain `$`. */
export function readDollar(sc: Scanner, b: WordBuilder, notes: Notes, context: Context): void {
  const { s } = sc
  const next = s[sc.i + 1]
  if (next === "'" && context === 'unquoted') return readAnsiC(sc, b)
  if (next === '"' && context === 'unquoted') {
    // A string translated through the locale's message catalog: its text is whatever that says.
    sc.i += 2
    const inner = newWord(sc.i)
    readDoubleQuoted(sc, inner, notes)
    b.value += HOLE
    b.quoted = true
    b.expanded = inner.expanded
    b.substitutes ||= inner.substitutes
    note(notes, 'opaque', 'locale-translated text ($"…")')
    return
  }
  if (next === '(') {
    if (s[sc.i + 2] === '(') {
      const start = sc.i
      sc.i += 3
      if (readArithmetic(sc, notes, '))')) {
        appendHole(b, context)
        b.substitutes = true
        return
      }
      // `$( (…) …)`: a command substitution starting with a subshell.
      sc.i = start
    }
    sc.i += 2
    sc.nested(sc)
    appendHole(b, context)
    b.substitutes = true
    return
  }
  if (next === '[') {
    sc.i += 2
    if (!readArithmetic(sc, notes, ']')) fail('an unterminated arithmetic expansion "$["')
    appendHole(b, context)
    b.substitutes = true
    return
  }
  if (next === '{') return readBraced(sc, b, notes, context)
  if (next !== undefined && IDENTIFIER_START.test(next)) {
    sc.i += 2
    while (sc.i < s.length && IDENTIFIER.test(s[sc.i]!)) sc.i++
    appendHole(b, context)
    return
  }
  if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
    sc.i += 2
    // "$@" becomes one field per positional parameter, quoted or not.
    appendHole(b, context, next === '@')
    return
  }
  b.value += '$'
  sc.i++
}

/** At a backtick: the command substitution up to the closing one, its text unescaped and parsed. */
export function readBacktick(sc: Scanner, b: WordBuilder, context: Context): void {
  const { s } = sc
  let i = sc.i + 1
  let inner = ''
  for (;;) {
    const c = s[i]
    if (c === undefined) fail('an unterminated backtick substitution')
    if (c === '`') break
    if (c === '\\') {
      const next = s[i + 1]
      if (next === undefined) fail('an unterminated backtick substitution')
      // Inside backticks a backslash quotes only $, `, \ (and " inside double quotes); the rest stays.
      if (next === '$' || next === '`' || next === '\\' || (next === '"' && context === 'dquote'))
        inner += next
      else inner += c + next
      i += 2
    } else {
      inner += c
      i++
    }
  }
  sc.i = i + 1
  try {
    sc.script(inner, sc.depth + 1)
  } catch (error) {
    if (error instanceof ShellSyntaxError && !error.message.endsWith('in a backtick substitution')) {
      throw new ShellSyntaxError(`${error.message} in a backtick substitution`)
    }
    throw error
  }
  appendHole(b, context)
  b.substitutes = true
}

/** `<(…)` or `>(…)`: a command list whose output or input becomes a file name. */
export function readProcessSubstitution(sc: Scanner, b: WordBuilder): void {
  sc.i += 2
  sc.nested(sc)
  b.value += HOLE
  b.expanded = true
  b.substitutes = true
}

/**
 * The content of an arithmetic context up to `closer` (`))` or `]`). Expansions in it are read
 * (their commands run); since bash evaluates the names and values of an arithmetic expression as
 * expressions again (`x='a[$(cmd)]'; echo $((x))` runs `cmd`), one that reads any variable or
 * computed value is noted as hidden. Returns false, restoring nothing, when `))` turns out not to
 * close it (`$( (…) …)` is a command substitution).
 */
export function readArithmetic(sc: Scanner, notes: Notes, closer: '))' | ']'): boolean {
  const { s } = sc
  const b = newWord(sc.i)
  let depth = 0
  for (;;) {
    const c = s[sc.i]
    if (c === undefined) return false
    if (closer === '))') {
      if (c === '(') depth++
      else if (c === ')') {
        if (depth === 0) {
          if (s[sc.i + 1] !== ')') return false
          sc.i += 2
          break
        }
        depth--
      }
    } else if (c === '[') depth++
    else if (c === ']') {
      if (depth === 0) {
        sc.i++
        break
      }
      depth--
    }
    if (c === '$') {
      readDollar(sc, b, notes, 'dquote')
      continue
    }
    if (c === '`') {
      readBacktick(sc, b, 'dquote')
      continue
    }
    if (c === '"') {
      sc.i++
      readDoubleQuoted(sc, b, notes)
      continue
    }
    if (c === "'") {
      // bash pairs quotes while it looks for the closing parentheses; what they hold is no number.
      const close = s.indexOf("'", sc.i + 1)
      if (close < 0) return false
      b.value += HOLE
      sc.i = close + 1
      continue
    }
    if (c === '\\') {
      b.value += HOLE
      sc.i += 2
      continue
    }
    b.value += c
    sc.i++
  }
  checkArithmetic(b.value, notes)
  return true
}

/** Notes an arithmetic expression that reads a variable or a computed value (see `readArithmetic`). */
export function checkArithmetic(expression: string, notes: Notes): void {
  const rest = expression.replace(/\b(?:0[xX][0-9A-Fa-f]+|\d+#[0-9A-Za-z@_]+|\d+)\b/g, '')
  if (rest.includes(HOLE) || /[A-Za-z_]/.test(rest)) {
    note(notes, 'hidden', 'arithmetic on a variable or a computed value (bash evaluates such values as code)')
  }
}

/** `${…}`: the parameter, an optional subscript and operator, and the operator's word. */
function readBraced(sc: Scanner, b: WordBuilder, notes: Notes, context: Context): void {
  const { s } = sc
  inc(sc, 'parameter expansions')
  let i = sc.i + 2
  let indirect = false
  if (s[i] === '!' && s[i + 1] !== '}') {
    indirect = true
    i++
  } else if (
    s[i] === '#' &&
    s[i + 1] !== '}' &&
    (IDENTIFIER_START.test(s[i + 1] ?? '') || /[0-9@*#?$!-]/.test(s[i + 1] ?? ''))
  ) {
    // `${#x}`: a length.
    i++
  }
  const nameStart = i
  if (IDENTIFIER_START.test(s[i] ?? '')) while (i < s.length && IDENTIFIER.test(s[i]!)) i++
  else if (/[0-9]/.test(s[i] ?? '')) while (i < s.length && /[0-9]/.test(s[i]!)) i++
  else if (SPECIAL_PARAMETER.test(s[i] ?? '')) i++
  if (i === nameStart) fail('a bad substitution "${"')
  const name = s.slice(nameStart, i)
  sc.i = i
  let subscript: string | undefined
  if (s[sc.i] === '[') {
    sc.i++
    const inner = newWord(sc.i)
    readUntilClose(sc, inner, notes, context, ']')
    subscript = inner.value
    b.substitutes ||= inner.substitutes
    if (!/^(\d+|@|\*)$/.test(subscript)) note(notes, 'hidden', 'an array subscript the shell evaluates')
  }
  if (indirect) {
    const listing = s[sc.i] === '*' || s[sc.i] === '@' ? s[sc.i + 1] === '}' : false
    if (!listing && !(subscript === '@' || subscript === '*')) {
      note(notes, 'hidden', 'an indirect expansion (${!name}) reads a variable the text does not name')
    }
  }
  const op = s[sc.i]
  if (op === '@' && s[sc.i + 1] === 'P') {
    note(notes, 'hidden', 'prompt expansion (${name@P}) runs substitutions held in the value')
  }
  if (op === ':' && !/[-=+?]/.test(s[sc.i + 1] ?? '')) {
    // `${x:offset:length}`: both are arithmetic.
    sc.i++
    const inner = newWord(sc.i)
    readUntilClose(sc, inner, notes, context, '}')
    checkArithmetic(inner.value, notes)
    b.substitutes ||= inner.substitutes
  } else if (op !== '}') {
    const defaults = /^:?[-=+?]/.test(s.slice(sc.i, sc.i + 2))
    const inner = newWord(sc.i)
    readUntilClose(sc, inner, notes, context, '}', defaults)
    b.substitutes ||= inner.substitutes
  } else sc.i++
  sc.depth--
  void name
  // "$@", "${@…}" and "${a[@]…}" become one field per element, quoted or not.
  appendHole(b, context, (name === '@' || subscript === '@') && !indirect)
}

/**
 * Reads up to and including `close` (`}` or `]`), with quotes, escapes and expansions; nested
 * `${…}` are read whole. Inside double quotes (or a here-document), bash reads single quotes in
 * the word of `${x:-…}` as plain characters and expands what they hold, but pairs them when it
 * looks for the closing brace: that case is refused rather than modelled.
 */
function readUntilClose(
  sc: Scanner,
  b: WordBuilder,
  notes: Notes,
  context: Context,
  close: '}' | ']',
  defaults = false,
): void {
  const { s } = sc
  const inner: Context = context === 'unquoted' ? 'unquoted' : 'dquote'
  for (;;) {
    const c = s[sc.i]
    if (c === undefined)
      fail(close === '}' ? 'an unterminated parameter expansion "${"' : 'an unterminated subscript "["')
    if (c === close) {
      sc.i++
      return
    }
    switch (c) {
      case '\\':
        if (s[sc.i + 1] === undefined) fail('an unterminated parameter expansion "${"')
        if (s[sc.i + 1] !== '\n') b.value += s[sc.i + 1]
        sc.i += 2
        break
      case "'": {
        if (context !== 'unquoted' && (defaults || close === ']')) {
          fail('a single quote inside "${…}" within double quotes')
        }
        const end = s.indexOf("'", sc.i + 1)
        if (end < 0) fail('an unterminated single quote')
        b.value += s.slice(sc.i + 1, end)
        sc.i = end + 1
        break
      }
      case '"':
        sc.i++
        readDoubleQuoted(sc, b, notes)
        break
      case '$':
        readDollar(sc, b, notes, inner)
        break
      case '`':
        readBacktick(sc, b, inner)
        break
      case '<':
      case '>':
        // Unquoted, the word of `${x:-…}` (and of every other operator) is expanded as a word is:
        // a `<(…)` or `>(…)` in it runs (`${x:->(curl …)}` runs curl).
        if (context === 'unquoted' && close === '}' && s[sc.i + 1] === '(') {
          readProcessSubstitution(sc, b)
          break
        }
        b.value += c
        sc.i++
        break
      case '{':
        if (close === '}') fail('a "{" inside "${…}"')
        b.value += c
        sc.i++
        break
      default:
        b.value += c
        sc.i++
    }
  }
}
