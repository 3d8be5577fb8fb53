/** One simple command of a shell command line. */
export interface CommandPart {
  /** Its source text, trimmed. */
  readonly text: string
  /** Its words after quote removal, redirections left out. */
  readonly words: readonly string[]
  /**
   * Why the words alone do not say what runs (an expansion, a substitution, a redirection to a
   * file, a subshell, an environment assignment, a command name with glob syntax), or undefined.
   * Allow rules never vouch for an opaque part; deny and ask rules still match its words.
   */
  readonly opaque: string | undefined
}

export type SplitCommand =
  | { readonly ok: true; readonly parts: readonly CommandPart[] }
  | { readonly ok: false; readonly problem: string }

/** Unquoted characters that make a command name something the shell expands (glob, brace, tilde). */
const EXPANDING = new Set(['*', '?', '[', ']', '{', '}', '~'])
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/
/** Characters with no meaning to the lexer, matched as a run from `lastIndex`. */
const ORDINARY_RUN = /[^ \t\n;&|<>()'"\\$`*?[\]{}~]+/y
const PARAMETER_START = /[A-Za-z0-9_@*#?$!-]/
/** A part's text starts after the separator that ended the previous one. */
const LEADING_SEPARATORS = /^[\s;&|]+/

interface PartState {
  start: number
  words: string[]
  /** Parallel to `words`: the word had an unquoted expanding character. */
  expanding: boolean[]
  word: string | undefined
  wordExpanding: boolean
  wordQuoted: boolean
  opaque: string | undefined
  redirect: { readonly op: string } | undefined
  readonly collect: boolean
}

class SyntaxProblem extends Error {}

/**
 * Splits a shell command line into the simple commands it runs, as a POSIX shell would read it:
 * quotes and backslashes are removed (`'r'm`, `\rm` and `r""m` are all `rm`), runs of blanks
 * separate words, and `;`, `&&`, `||`, `|`, `|&`, `&` and newlines separate commands. Commands
 * inside `$(…)`, backticks, `<(…)`, `>(…)` and `( … )` are parts of their own (they run too), and
 * the command containing them is opaque. A line the shell would reject (an unterminated quote or
 * substitution, an unmatched `)`) is a problem, never a guess.
 *
 * Where it departs from a shell it is stricter, never looser: `#` starts no comment (text after
 * it is still split and checked), and a leading word shaped like `NAME=value` counts as an
 * environment assignment even when quoted.
 */
export function splitCommand(command: string): SplitCommand {
  const s = command
  const n = s.length
  let i = 0
  const parts: CommandPart[] = []
  let part: PartState = newPart(0, true)

  function newPart(start: number, collect: boolean): PartState {
    return {
      start,
      words: [],
      expanding: [],
      word: undefined,
      wordExpanding: false,
      wordQuoted: false,
      opaque: undefined,
      redirect: undefined,
      collect,
    }
  }

  const markOpaque = (why: string): void => {
    part.opaque ??= why
  }
  const append = (text: string): void => {
    part.word = (part.word ?? '') + text
  }

  function endWord(): void {
    const word = part.word
    if (word === undefined) return
    if (part.redirect !== undefined) {
      if (!isHarmlessRedirect(part.redirect.op, word)) markOpaque('a redirection to or from a file')
      part.redirect = undefined
    } else {
      part.words.push(word)
      part.expanding.push(part.wordExpanding)
    }
    part.word = undefined
    part.wordExpanding = false
    part.wordQuoted = false
  }

  function endPart(end: number): void {
    endWord()
    if (part.redirect !== undefined) {
      markOpaque('a redirection without a target')
      part.redirect = undefined
    }
    const { words, expanding } = part
    let first = 0
    while (first < words.length && ASSIGNMENT.test(words[first]!)) first++
    if (first > 0) markOpaque('an environment assignment')
    if (first < words.length && expanding[first] === true) {
      markOpaque('a command name with glob, brace or tilde syntax')
    }
    if (part.collect && (words.length > 0 || part.opaque !== undefined)) {
      parts.push({
        text: s.slice(part.start, end).replace(LEADING_SEPARATORS, '').trimEnd(),
        words,
        opaque: part.opaque,
      })
    }
    part = newPart(end, part.collect)
  }

  /** Lexes a nested command list up to `terminator`; its commands become parts when `collect`. */
  function nested(terminator: string, collect: boolean, what: string): void {
    const outer = part
    part = newPart(i, collect)
    const closed = lex(terminator)
    if (!closed) throw new SyntaxProblem(`an unterminated ${what}`)
    part = outer
  }

  function readDollar(inDoubleQuotes: boolean): void {
    const next = s[i + 1]
    if (next === '(') {
      markOpaque('a command substitution')
      i += 2
      nested(')', true, 'command substitution "$("')
      append('$(…)')
    } else if (next === '{') {
      markOpaque('a parameter expansion')
      i += 2
      // The words inside ${…} are not a command, but a substitution inside them still runs.
      nested('}', false, 'parameter expansion "${"')
      append('${…}')
    } else if (next === "'" && !inDoubleQuotes) {
      markOpaque('ANSI-C quoting')
      i += 2
      while (i < n && s[i] !== "'") i += s[i] === '\\' ? 2 : 1
      if (i >= n) throw new SyntaxProblem(`an unterminated ANSI-C quote "$'"`)
      i++
      append("$'…'")
    } else if (next !== undefined && (PARAMETER_START.test(next) || (next === '"' && !inDoubleQuotes))) {
      markOpaque('a parameter expansion')
      append('$')
      i++
    } else {
      append('$')
      i++
    }
  }

  function readBacktick(): void {
    markOpaque('a command substitution')
    i++
    nested('`', true, 'backtick substitution')
    append('`…`')
  }

  /** Returns true when it stopped at `terminator`, false at the end of the input. */
  function lex(terminator: string | undefined): boolean {
    while (i < n) {
      const c = s[i]!
      if (c === terminator) {
        endPart(i)
        i++
        return true
      }
      switch (c) {
        case ' ':
        case '\t':
          endWord()
          i++
          break
        case '\n':
        case ';':
          endPart(i)
          i++
          break
        case '&':
          if (s[i + 1] === '>') {
            endWord()
            i += s[i + 2] === '>' ? 3 : 2
            part.redirect = { op: '&>' }
          } else {
            endPart(i)
            i += s[i + 1] === '&' ? 2 : 1
          }
          break
        case '|':
          endPart(i)
          i += s[i + 1] === '|' || s[i + 1] === '&' ? 2 : 1
          break
        case '<':
        case '>':
          if (s[i + 1] === '(') {
            markOpaque('a process substitution')
            i += 2
            nested(')', true, `process substitution "${c}("`)
            append(`${c}(…)`)
            break
          }
          if (part.word !== undefined && !(/^\d+$/.test(part.word) && !part.wordQuoted)) endWord()
          part.word = undefined
          part.wordExpanding = false
          part.wordQuoted = false
          {
            let op = c
            i++
            while (i < n && op.length < 3 && (s[i] === '<' || s[i] === '>' || s[i] === '&' || s[i] === '|')) {
              op += s[i]
              i++
            }
            part.redirect = { op }
          }
          break
        case '(':
          markOpaque('a subshell')
          endWord()
          i++
          nested(')', true, 'subshell "("')
          break
        case ')':
          throw new SyntaxProblem('an unmatched ")"')
        case "'": {
          const close = s.indexOf("'", i + 1)
          if (close < 0) throw new SyntaxProblem('an unterminated single quote')
          append(s.slice(i + 1, close))
          part.wordQuoted = true
          i = close + 1
          break
        }
        case '"':
          i++
          part.wordQuoted = true
          append('')
          while (i < n && s[i] !== '"') {
            const d = s[i]!
            if (d === '\\' && i + 1 < n) {
              const escaped = s[i + 1]!
              if (escaped === '\n') i += 2
              else if ('$`"\\'.includes(escaped)) {
                append(escaped)
                i += 2
              } else {
                append('\\')
                i++
              }
            } else if (d === '$') readDollar(true)
            else if (d === '`') readBacktick()
            else {
              append(d)
              i++
            }
          }
          if (i >= n) throw new SyntaxProblem('an unterminated double quote')
          i++
          break
        case '\\':
          if (i + 1 >= n) {
            append('\\')
            i++
          } else if (s[i + 1] === '\n') i += 2
          else {
            append(s[i + 1]!)
            part.wordQuoted = true
            i += 2
          }
          break
        case '$':
          readDollar(false)
          break
        case '`':
          readBacktick()
          break
        default: {
          if (EXPANDING.has(c)) {
            part.wordExpanding = true
            append(c)
            i++
            break
          }
          // A run of ordinary characters is appended at once.
          ORDINARY_RUN.lastIndex = i
          ORDINARY_RUN.test(s)
          append(s.slice(i, ORDINARY_RUN.lastIndex))
          i = ORDINARY_RUN.lastIndex
        }
      }
    }
    endPart(n)
    return false
  }

  try {
    lex(undefined)
  } catch (error) {
    if (error instanceof SyntaxProblem) return { ok: false, problem: `it has ${error.message}` }
    throw error
  }
  return { ok: true, parts }
}

/** Redirections that touch no file: duplicating a descriptor, /dev/null, a here-string. */
function isHarmlessRedirect(op: string, target: string): boolean {
  if (op === '>&' || op === '<&') return /^(\d+|-)$/.test(target)
  if (op === '<<<') return true
  return ['>', '>>', '>|', '&>', '&>>', '<'].includes(op) && target === '/dev/null'
}
