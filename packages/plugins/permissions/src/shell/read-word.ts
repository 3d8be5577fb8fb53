import { fail, isMeta, MAX_NESTING, note, ShellSyntaxError, type Notes, type Scanner } from './scanner.ts'
import { braceExpands } from './brace-expands.ts'
import { finishWord, HOLE, newWord, type ShellWord, type WordBuilder } from './shell-word.ts'

/**
 * How a word is read:
 * - `normal`: a word of a command, ended by a blank or an operator character;
 * - `regex`: the right side of `=~` in `[[ … ]]`, where `(`, `)` and `|` belong to the word;
 * - `delimiter`: a here-document delimiter, where `$` and backticks are plain characters.
 */
export type WordMode = 'normal' | 'regex' | 'delimiter'

/** Where a `$`, a backtick or a `${…}` sits, which decides how its text is read. */
type Context = 'unquoted' | 'dquote' | 'heredoc'

const IDENTIFIER_START = /[A-Za-z_]/
const IDENTIFIER = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/
/** A run of characters with no meaning to the word reader. */
const ORDINARY_RUN = /[^ \t\n;&|()<>'"\\$`*?[\]{},~]+/y
/** Inside double quotes, a run of characters with no meaning. */
const DQUOTE_RUN = /[^"\\$`]+/y
/** An assignment word so far (`NAME=`, `NAME+=`, `NAME[…]=`), before a compound value `(…)`. */
const ASSIGNMENT_SO_FAR = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/

const inc = (sc: Scanner, what: string): void => {
  if (++sc.depth > MAX_NESTING) fail(`${what} nested deeper than ${MAX_NESTING}`)
}

/**
 * Where the tilde prefix that starts at `at` ends (the first "/" or ":", or the end of the word:
 * bash 5.2 turns `~:a` into `$HOME:a`), or undefined when a character of it is quoted or starts an
 * expansion: then bash leaves the "~" as it is (`~"root"`, `~r\oot` and `~ro$X` are not expanded).
 */
function tildePrefixEnd(s: string, at: number): number | undefined {
  let end = at + 1
  while (end < s.length && !isMeta(s[end]) && s[end] !== '/' && s[end] !== ':') {
    // A backslash-newline is gone before the word is read: `~\<newline>root` is `~root`.
    if (s[end] === '\\' && s[end + 1] === '\n') {
      end += 2
      continue
    }
    if (`'"\\$\``.includes(s[end]!)) return undefined
    end++
  }
  return end
}

/** An argument that looks like an assignment (`NAME=`, `NAME+=`, `NAME[…]=`, then anything). */
const ASSIGNMENT_LIKE = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/

/**
 * Whether a "~" at `at` may start a tilde prefix: at the start of a word, or — bash expands these in
 * arguments too, not only in assignments — right after the first "=" of an assignment-like word or
 * after an unquoted ":" in one (`curl x=~` runs curl with `x=$HOME`, `x=a:~/b` with `x=a:$HOME/b`).
 */
function startsTildePrefix(s: string, start: number, at: number): boolean {
  if (at === start) return true
  const before = s.slice(start, at)
  if (!ASSIGNMENT_LIKE.test(before)) return false
  if (ASSIGNMENT_SO_FAR.test(before)) return true
  if (s[at - 1] !== ':') return false
  // a ":" right before the "~" can only be quoted by a backslash: an odd run of them quotes it
  let backslashes = 0
  while (s[at - 2 - backslashes] === '\\') backslashes++
  return backslashes % 2 === 0
}

/** Marks a computed part of a word; unquoted, its result is split into fields. */
function appendHole(b: WordBuilder, context: Context, splitsEvenQuoted = false): void {
  b.value += HOLE
  b.expanded = true
  if (context === 'unquoted' || splitsEvenQuoted) b.splits = true
}

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

/** After an opening `"`: up to and including the closing one. */
function readDoubleQuoted(sc: Scanner, b: WordBuilder, notes: Notes): void {
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
function readDollar(sc: Scanner, b: WordBuilder, notes: Notes, context: Context): void {
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

/** `$'…'`: decoded as bash decodes it; escapes whose result depends on the locale are holes. */
function readAnsiC(sc: Scanner, b: WordBuilder): void {
  const { s } = sc
  let i = sc.i + 2
  b.quoted = true
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  }
  // A NUL ends the C string bash builds from the quote: the rest of it is read but adds nothing.
  let ended = false
  const add = (text: string): void => {
    if (!ended) b.value += text
  }
  for (;;) {
    const c = s[i]
    if (c === undefined) fail('an unterminated ANSI-C quote "$\'"')
    if (c === "'") break
    if (c !== '\\') {
      add(c)
      i++
      continue
    }
    const e = s[i + 1]
    if (e === undefined) fail('an unterminated ANSI-C quote "$\'"')
    const mapped = simple[e]
    if (mapped !== undefined) {
      add(mapped)
      i += 2
      continue
    }
    let code: number | undefined
    let length = 0
    if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))!
      code = Number.parseInt(m[0], 8)
      length = m[0].length
    } else if (e === 'x') {
      const m = /^[0-9A-Fa-f]{1,2}/.exec(s.slice(i + 2, i + 4))
      if (m !== null) {
        code = Number.parseInt(m[0], 16)
        length = 1 + m[0].length
      }
    } else if (e === 'u' || e === 'U') {
      // \u takes up to 4 hex digits, \U up to 8; up to 0x7f the code is the ASCII character in
      // every locale, above it the bytes depend on the locale (a hole).
      const m = (e === 'u' ? /^[0-9A-Fa-f]{0,4}/ : /^[0-9A-Fa-f]{0,8}/).exec(s.slice(i + 2, i + 10))!
      if (m[0] !== '') {
        const unicode = Number.parseInt(m[0], 16)
        if (unicode > 0x7f) {
          add(HOLE)
          i += 2 + m[0].length
          continue
        }
        code = unicode
        length = 1 + m[0].length
      }
    } else if (e === 'c') {
      // Depends on bash's control-character table: not guessed.
      const m = /^.?/s.exec(s.slice(i + 2, i + 3))!
      add(HOLE)
      i += 2 + m[0].length
      continue
    }
    if (code === undefined) {
      // An unknown escape stays as written.
      add(`\\${e}`)
      i += 2
    } else {
      if (code === 0) ended = true
      // Bytes above ASCII are not characters on their own.
      else add(code > 0x7f ? HOLE : String.fromCharCode(code))
      i += 1 + length
    }
  }
  sc.i = i + 1
}

/** At a backtick: the command substitution up to the closing one, its text unescaped and parsed. */
function readBacktick(sc: Scanner, b: WordBuilder, context: Context): void {
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
function readProcessSubstitution(sc: Scanner, b: WordBuilder): void {
  sc.i += 2
  sc.nested(sc)
  b.value += HOLE
  b.expanded = true
  b.substitutes = true
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
