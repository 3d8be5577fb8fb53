import { readArithmetic } from './read-expansion.ts'
import { readWord } from './read-word.ts'
import {
  fail,
  isBlank,
  isMeta,
  MAX_NESTING,
  note,
  peekReserved,
  ShellSyntaxError,
  skipBlanks,
  type Notes,
  type Scanner,
} from './scanner.ts'
import type { ShellWord } from './shell-word.ts'

/** Bash's reserved words (where a command name would stand). */
export const RESERVED = new Set([
  '!',
  '{',
  '}',
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
  '[[',
])
/** Reserved words that end a command list. */
const CLOSERS = new Set(['}', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'then'])
const PIPELINE_PREFIXES = new Set(['!', 'time'])
/** Words after which a compound command follows `coproc NAME`. */
const COMPOUND_STARTS = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case', '[['])
/** Builtins whose `NAME=(…)` arguments are array assignments. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly'])
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])
const REDIRECT_OPERATORS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>&', '>>', '>|', '<', '>'] as const
/** Redirection targets that are no file a rule would care about. */
const HARMLESS_FILES = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr'])
/** A word that is an assignment as bash reads one: an unquoted name, an optional subscript, `=`. */
export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/

type Stop = 'eof' | ')' | ';;' | ';&' | ';;&' | string

const newNotes = (): Notes => ({ opaque: undefined, hidden: undefined })

/** Parses the command list of a whole script: to its end, with nothing left over. */
export function parseScript(sc: Scanner): void {
  const stop = parseList(sc, new Set(['eof']), 'script')
  if (stop !== 'eof') fail(`an unexpected "${stop}"`)
  readHeredocBodies(sc)
}

/** Parses the command list of `$(…)` up to and including its `)`. */
export function parseNested(sc: Scanner): void {
  if (++sc.depth > MAX_NESTING) fail(`substitutions nested deeper than ${MAX_NESTING}`)
  const outer = sc.heredocs
  sc.heredocs = []
  const stop = parseList(sc, new Set([')']), 'command substitution "$("')
  if (sc.heredocs.length > 0) fail('a here-document that "$(…)" closes before its body')
  sc.heredocs = outer
  sc.i++
  void stop
  sc.depth--
}

/**
 * A command list: and-or lists separated by `;`, `&` and newlines, up to one of `stops` (not
 * consumed). Anything else that would end it is a syntax error naming `what`.
 */
function parseList(sc: Scanner, stops: ReadonlySet<string>, what: string): Stop {
  const { s } = sc
  for (;;) {
    const c = skipBlanks(sc)
    if (c === undefined) {
      if (stops.has('eof')) return 'eof'
      return fail(`an unterminated ${what}`)
    }
    if (c === '\n') {
      sc.i++
      readHeredocBodies(sc)
      continue
    }
    if (c === ')') {
      if (stops.has(')')) return ')'
      return fail('an unmatched ")"')
    }
    if (c === ';') {
      const op = s.startsWith(';;&', sc.i)
        ? ';;&'
        : s.startsWith(';;', sc.i)
          ? ';;'
          : s.startsWith(';&', sc.i)
            ? ';&'
            : ';'
      if (op !== ';' && stops.has(op)) return op
      return fail(`an unexpected "${op}"`)
    }
    const reserved = peekReserved(sc, RESERVED)
    if (reserved !== undefined && CLOSERS.has(reserved)) {
      if (stops.has(reserved)) return reserved
      return fail(`an unexpected "${reserved}"`)
    }
    parseAndOr(sc)
    const d = skipBlanks(sc)
    if (d === ';' && s[sc.i + 1] !== ';' && s[sc.i + 1] !== '&') sc.i++
    else if (d === '&') sc.i++
    else if (d !== undefined && d !== '\n' && d !== ')' && d !== ';') fail(`an unexpected "${d}"`)
  }
}

/** Skips blanks, comments and newlines (reading here-document bodies at each newline). */
function skipNewlines(sc: Scanner): void {
  while (skipBlanks(sc) === '\n') {
    sc.i++
    readHeredocBodies(sc)
  }
}

function parseAndOr(sc: Scanner): void {
  const { s } = sc
  parsePipeline(sc)
  for (;;) {
    const c = skipBlanks(sc)
    if ((c === '&' && s[sc.i + 1] === '&') || (c === '|' && s[sc.i + 1] === '|')) {
      sc.i += 2
      skipNewlines(sc)
      parsePipeline(sc)
    } else return
  }
}

/**
 * `time [-p]` and `!` before a pipeline. After a `|` neither is a reserved word: `!` is a syntax
 * error there and `time` is the program (/usr/bin/time).
 */
function skipPipelinePrefixes(sc: Scanner, afterPipe: boolean): void {
  const { s } = sc
  for (;;) {
    skipBlanks(sc)
    const prefix = peekReserved(sc, PIPELINE_PREFIXES)
    if (prefix === undefined || (prefix === 'time' && afterPipe)) return
    if (prefix === '!' && afterPipe) fail('an unexpected "!" after "|"')
    sc.i += prefix.length
    if (prefix === 'time') {
      skipBlanks(sc)
      if (s.startsWith('-p', sc.i) && (sc.i + 2 >= s.length || isMeta(s[sc.i + 2]))) sc.i += 2
    }
  }
}

function parsePipeline(sc: Scanner): void {
  const { s } = sc
  for (let first = true; ; first = false) {
    skipPipelinePrefixes(sc, !first)
    const c = skipBlanks(sc)
    // `time` alone times nothing.
    if (c === undefined || c === '\n' || c === ';' || (c === '&' && s[sc.i + 1] !== '>')) return
    parseCommand(sc)
    const d = skipBlanks(sc)
    if (d !== '|' || s[sc.i + 1] === '|') return
    sc.i += s[sc.i + 1] === '&' ? 2 : 1
    skipNewlines(sc)
  }
}

/** Consumes the reserved word `word` at the scanner, or fails naming what it was part of. */
function expect(sc: Scanner, word: string, what: string): void {
  skipBlanks(sc)
  if (peekReserved(sc, new Set([word])) === undefined) fail(`an unterminated ${what} (no "${word}")`)
  sc.i += word.length
}

function parseCommand(sc: Scanner): void {
  const { s } = sc
  const c = skipBlanks(sc)
  const start = sc.i
  if (c === '(') {
    if (s[sc.i + 1] === '(') {
      sc.i += 2
      const notes = newNotes()
      if (readArithmetic(sc, notes, '))')) {
        emitConstruct(sc, start, notes)
        afterCompound(sc, start)
        return
      }
      sc.i = start
    }
    nest(sc)
    sc.i++
    const stop = parseList(sc, new Set([')']), 'subshell "("')
    void stop
    sc.i++
    sc.depth--
    afterCompound(sc, start)
    return
  }
  const reserved = peekReserved(sc, RESERVED)
  switch (reserved) {
    case '{':
      nest(sc)
      sc.i++
      parseList(sc, new Set(['}']), 'group "{"')
      sc.i++
      sc.depth--
      return afterCompound(sc, start)
    case 'if':
      nest(sc)
      sc.i += 2
      parseList(sc, new Set(['then']), '"if"')
      sc.i += 4
      for (;;) {
        const stop = parseList(sc, new Set(['elif', 'else', 'fi']), '"if"')
        sc.i += stop.length
        if (stop === 'elif') {
          parseList(sc, new Set(['then']), '"elif"')
          sc.i += 4
        } else if (stop === 'else') {
          parseList(sc, new Set(['fi']), '"else"')
          sc.i += 2
          break
        } else break
      }
      sc.depth--
      return afterCompound(sc, start)
    case 'while':
    case 'until':
      nest(sc)
      sc.i += reserved.length
      parseList(sc, new Set(['do']), `"${reserved}"`)
      sc.i += 2
      parseList(sc, new Set(['done']), `"${reserved}"`)
      sc.i += 4
      sc.depth--
      return afterCompound(sc, start)
    case 'for':
    case 'select':
      return parseFor(sc, reserved, start)
    case 'case':
      return parseCase(sc, start)
    case 'function': {
      sc.i += 8
      skipBlanks(sc)
      const name = readWord(sc, newNotes())
      if (name === undefined) fail('a function without a name')
      skipBlanks(sc)
      if (s[sc.i] === '(') readEmptyParens(sc)
      skipNewlines(sc)
      return parseFunctionBody(sc)
    }
    case 'coproc':
      return parseCoproc(sc)
    case '[[':
      return parseConditional(sc, start)
    case '!':
      return fail(`an unexpected "${reserved}"`)
    default:
      if (reserved !== undefined && CLOSERS.has(reserved)) fail(`an unexpected "${reserved}"`)
      return parseSimpleCommand(sc)
  }
}

function nest(sc: Scanner): void {
  if (++sc.depth > MAX_NESTING) fail(`commands nested deeper than ${MAX_NESTING}`)
}

/** `()` after a function name. */
function readEmptyParens(sc: Scanner): void {
  sc.i++
  skipBlanks(sc)
  if (sc.s[sc.i] !== ')') fail('a function definition without ")"')
  sc.i++
}

/** A function body: a compound command (its commands are checked whether or not it is called). */
function parseFunctionBody(sc: Scanner): void {
  const c = skipBlanks(sc)
  const reserved = peekReserved(sc, RESERVED)
  if (c !== '(' && (reserved === undefined || !COMPOUND_STARTS.has(reserved))) {
    fail('a function body that is not a compound command')
  }
  parseCommand(sc)
}

/** Redirections after a compound command; one to a file makes the construct a command of its own. */
function afterCompound(sc: Scanner, start: number): void {
  const notes = newNotes()
  let any = false
  for (;;) {
    skipBlanks(sc)
    if (!readRedirect(sc, notes)) break
    any = true
  }
  if (any && (notes.opaque !== undefined || notes.hidden !== undefined)) emitConstruct(sc, start, notes)
}

/** A construct that is no simple command but carries notes (an arithmetic command, a redirected group). */
function emitConstruct(sc: Scanner, start: number, notes: Notes, words: readonly ShellWord[] = []): void {
  if (notes.opaque === undefined && notes.hidden === undefined) return
  sc.commands.push({ text: sc.s.slice(start, sc.i).trim(), assignments: [], words, notes })
}

const SENSITIVE_NAMES = new Set([
  'PATH',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'BASH_LOADABLES_PATH',
  'EXECIGNORE',
])

/**
 * Whether assigning `name` changes what later commands run (the program search path, libraries a
 * program loads, code a shell sources or prints), so that their text no longer says it.
 */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAMES.has(name) || name.startsWith('BASH_FUNC_')
}

function parseFor(sc: Scanner, keyword: 'for' | 'select', start: number): void {
  const { s } = sc
  nest(sc)
  sc.i += keyword.length
  skipBlanks(sc)
  const notes = newNotes()
  if (keyword === 'for' && s.startsWith('((', sc.i)) {
    sc.i += 2
    if (!readArithmetic(sc, notes, '))')) fail('an unterminated "for (("')
    emitConstruct(sc, start, notes)
  } else {
    const name = readWord(sc, notes)
    if (name === undefined || name.fields !== 'exact' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value)) {
      fail(`a "${keyword}" loop without a variable name`)
    }
    if (isSensitiveName(name.value)) note(notes, 'hidden', `a "${keyword}" loop assigns ${name.value}`)
    skipNewlines(sc)
    if (peekReserved(sc, new Set(['in'])) !== undefined) {
      sc.i += 2
      for (;;) {
        const c = skipBlanks(sc)
        if (c === undefined || c === '\n' || c === ';') break
        if (readWord(sc, notes) === undefined) fail(`an unexpected "${c}" in a "${keyword}" loop`)
      }
    }
    emitConstruct(sc, start, notes)
  }
  const c = skipBlanks(sc)
  if (c === ';') sc.i++
  skipNewlines(sc)
  if (peekReserved(sc, new Set(['{'])) !== undefined) {
    sc.i++
    parseList(sc, new Set(['}']), 'group "{"')
    sc.i++
  } else {
    expect(sc, 'do', `"${keyword}" loop`)
    parseList(sc, new Set(['done']), `"${keyword}" loop`)
    sc.i += 4
  }
  sc.depth--
  afterCompound(sc, start)
}

function parseCase(sc: Scanner, start: number): void {
  const { s } = sc
  nest(sc)
  sc.i += 4
  skipBlanks(sc)
  const notes = newNotes()
  if (readWord(sc, notes) === undefined) fail('a "case" without a word')
  skipNewlines(sc)
  expect(sc, 'in', '"case"')
  for (;;) {
    skipNewlines(sc)
    if (peekReserved(sc, new Set(['esac'])) !== undefined) {
      sc.i += 4
      break
    }
    if (s[sc.i] === '(') sc.i++
    for (;;) {
      skipBlanks(sc)
      if (readWord(sc, notes) === undefined) fail('a "case" pattern that is not a word')
      const c = skipBlanks(sc)
      if (c === '|') sc.i++
      else if (c === ')') {
        sc.i++
        break
      } else fail('an unterminated "case" pattern')
    }
    const stop = parseList(sc, new Set([';;', ';&', ';;&', 'esac']), '"case"')
    sc.i += stop.length
    if (stop === 'esac') break
  }
  emitConstruct(sc, start, notes)
  sc.depth--
  afterCompound(sc, start)
}

function parseCoproc(sc: Scanner): void {
  const { s } = sc
  sc.i += 6
  const c = skipBlanks(sc)
  const reserved = peekReserved(sc, RESERVED)
  if (c === '(' || (reserved !== undefined && COMPOUND_STARTS.has(reserved))) return parseCommand(sc)
  // `coproc NAME compound`, or a simple command.
  const save = sc.i
  let end = sc.i
  while (end < s.length && /[A-Za-z0-9_]/.test(s[end]!)) end++
  if (end > sc.i && (end === s.length || isBlank(s[end]))) {
    sc.i = end
    const d = skipBlanks(sc)
    const next = peekReserved(sc, RESERVED)
    if (d === '(' || (next !== undefined && COMPOUND_STARTS.has(next))) return parseCommand(sc)
  }
  sc.i = save
  parseSimpleCommand(sc)
}

/** `[[ … ]]`: its words are expanded (substitutions run); arithmetic operands and `-v` names may run code. */
function parseConditional(sc: Scanner, start: number): void {
  const { s } = sc
  sc.i += 2
  const notes = newNotes()
  const tokens: (ShellWord | string)[] = []
  for (;;) {
    let c = s[sc.i]
    while (c === ' ' || c === '\t' || c === '\n' || (c === '\\' && s[sc.i + 1] === '\n')) {
      sc.i += c === '\\' ? 2 : 1
      c = s[sc.i]
    }
    if (c === undefined) fail('an unterminated "[["')
    if (s.startsWith(']]', sc.i) && (sc.i + 2 >= s.length || isMeta(s[sc.i + 2]))) {
      sc.i += 2
      break
    }
    const two = s.slice(sc.i, sc.i + 2)
    if (two === '&&' || two === '||') {
      tokens.push(two)
      sc.i += 2
      continue
    }
    // `<(…)` and `>(…)` are process substitutions here too: they run.
    if (c === '(' || c === ')' || ((c === '<' || c === '>') && s[sc.i + 1] !== '(')) {
      tokens.push(c)
      sc.i++
      continue
    }
    const previous = tokens.at(-1)
    const regex = typeof previous === 'object' && previous.fields === 'exact' && previous.value === '=~'
    const word = readWord(sc, notes, regex ? 'regex' : 'normal')
    if (word === undefined) fail(`an unexpected "${c}" in "[["`)
    tokens.push(word)
  }
  tokens.forEach((token, i) => {
    if (typeof token !== 'object' || token.quoted) return
    if (ARITHMETIC_TESTS.has(token.value)) {
      for (const operand of [tokens[i - 1], tokens[i + 1]]) {
        if (
          typeof operand !== 'object' ||
          operand.fields !== 'exact' ||
          !/^\s*[-+]?\d+\s*$/.test(operand.value)
        ) {
          note(notes, 'hidden', `arithmetic on a computed value in "[[ … ${token.value} … ]]"`)
        }
      }
    } else if (token.value === '-v') {
      const operand = tokens[i + 1]
      if (typeof operand !== 'object' || operand.fields !== 'exact' || operand.value.includes('[')) {
        note(notes, 'hidden', 'a "-v" test of an array element (its subscript may run code)')
      }
    }
  })
  emitConstruct(sc, start, notes)
  afterCompound(sc, start)
}

/** A simple command: assignments, words and redirections, or a function definition `name () body`. */
function parseSimpleCommand(sc: Scanner): void {
  const { s } = sc
  const start = sc.i
  const notes = newNotes()
  const assignments: ShellWord[] = []
  const words: ShellWord[] = []
  for (;;) {
    const c = skipBlanks(sc)
    if (c === undefined || c === '\n' || c === ';' || c === '|' || c === ')') break
    if (c === '&' && s[sc.i + 1] !== '>') break
    if (c === '(') {
      if (words.length === 1 && assignments.length === 0 && !words[0]!.expanded) {
        readEmptyParens(sc)
        skipNewlines(sc)
        parseFunctionBody(sc)
        return
      }
      fail('an unexpected "("')
    }
    if (readRedirect(sc, notes)) continue
    const declaration = words.length > 0 && DECLARATIONS.has(words[0]!.value)
    const word = readWord(sc, notes, 'normal', { assignment: words.length === 0 || declaration })
    if (word === undefined) fail(`an unexpected "${c}"`)
    const assignment = words.length === 0 ? ASSIGNMENT.exec(word.text) : null
    if (assignment !== null) {
      if (assignment[2] !== undefined && !/^\[\d+\]$/.test(assignment[2])) {
        note(notes, 'hidden', 'an array subscript the shell evaluates')
      }
      if (isSensitiveName(assignment[1]!)) note(notes, 'hidden', `an assignment to ${assignment[1]}`)
      assignments.push(word)
    } else words.push(word)
  }
  if (
    assignments.length === 0 &&
    words.length === 0 &&
    notes.opaque === undefined &&
    notes.hidden === undefined
  ) {
    return
  }
  sc.commands.push({ text: s.slice(start, sc.i).trim(), assignments, words, notes })
}

/**
 * A redirection at the scanner (`[n]op target`, `{name}op target`, a here-document or a
 * here-string), or false when none starts there. A redirection to or from a file makes its command
 * opaque; here-documents wait for the next newline for their body.
 */
function readRedirect(sc: Scanner, notes: Notes): boolean {
  const { s } = sc
  let at = sc.i
  while (at < s.length && s[at]! >= '0' && s[at]! <= '9') at++
  if (at === sc.i && s[at] === '{') {
    const named = /^\{([A-Za-z_][A-Za-z0-9_]*)\}[<>]/.exec(s.slice(at, at + 300))
    if (named !== null) {
      at += named[0].length - 1
      if (isSensitiveName(named[1]!)) note(notes, 'hidden', `a redirection that assigns ${named[1]}`)
    }
  }
  const c = s[at]
  if (!(c === '<' || c === '>' || (c === '&' && s[at + 1] === '>' && at === sc.i))) return false
  if ((c === '<' || c === '>') && s[at + 1] === '(') return false
  const op = REDIRECT_OPERATORS.find((o) => s.startsWith(o, at))!
  sc.i = at + op.length
  skipBlanks(sc)
  if (op === '<<' || op === '<<-') {
    const delimiter = readWord(sc, notes, 'delimiter')
    if (delimiter === undefined) fail('a here-document without a delimiter')
    sc.heredocs.push({ delimiter: delimiter.value, quoted: delimiter.quoted, stripTabs: op === '<<-', notes })
    return true
  }
  if ((op === '>&' || op === '<&') && s[sc.i] === '-') {
    // bash's lexer returns a "-" after ">&" or "<&" as a token of its own: `>&-*` closes the
    // descriptor and `*` is the next word.
    sc.i++
    return true
  }
  const target = readWord(sc, notes)
  if (target === undefined) fail('a redirection without a target')
  if (op === '<<<') return true
  const exact = target.fields === 'exact'
  if ((op === '>&' || op === '<&') && exact && /^(\d+-?|-)$/.test(target.value)) return true
  if (exact && HARMLESS_FILES.has(target.value) && op !== '<>') return true
  note(notes, 'opaque', 'a redirection to or from a file')
  return true
}

/**
 * Reads the bodies of the pending here-documents, which start after the newline just consumed.
 * A body ends at a line that is its delimiter (after leading tabs, for `<<-`) or at the end of the
 * text, as bash reads it; an unquoted delimiter makes the body expanded like a double-quoted word.
 */
export function readHeredocBodies(sc: Scanner): void {
  const { s } = sc
  const pending = sc.heredocs
  if (pending.length === 0) return
  sc.heredocs = []
  for (const heredoc of pending) {
    let body = ''
    while (sc.i < s.length) {
      let end = s.indexOf('\n', sc.i)
      if (end < 0) end = s.length
      let line = s.slice(sc.i, end)
      sc.i = Math.min(end + 1, s.length)
      if (!heredoc.quoted) {
        // A backslash-newline joins the next line (the delimiter is looked for after joining).
        while (/(^|[^\\])(\\\\)*\\$/.test(line) && sc.i < s.length) {
          let next = s.indexOf('\n', sc.i)
          if (next < 0) next = s.length
          line = line.slice(0, -1) + s.slice(sc.i, next)
          sc.i = Math.min(next + 1, s.length)
        }
      }
      const compared = heredoc.stripTabs ? line.replace(/^\t+/, '') : line
      if (compared === heredoc.delimiter) break
      body += `${compared}\n`
    }
    if (!heredoc.quoted && /[$`]/.test(body)) {
      try {
        sc.heredoc(body, sc.depth + 1, heredoc.notes)
      } catch (error) {
        if (error instanceof ShellSyntaxError)
          throw new ShellSyntaxError(`${error.message} in a here-document body`)
        throw error
      }
    }
  }
}
