import {
  endWord as endWord_,
  finishPart,
  markOpaque as markOpaque_,
  newPart,
  type CommandPart,
  type PartState,
} from './command-part.ts'

export type { CommandPart } from './command-part.ts'

export type SplitCommand =
  | { readonly ok: true; readonly parts: readonly CommandPart[] }
  | { readonly ok: false; readonly problem: string }

/** Unquoted characters that make a word something the shell computes (glob, brace, tilde). */
const EXPANDING = new Set(['*', '?', '[', ']', '{', '}', '~'])
/** Characters with no meaning to the lexer, matched as a run from `lastIndex`. */
const ORDINARY_RUN = /[^ \t\n;&|<>()'"\\$`*?[\]{}~]+/y
const PARAMETER_START = /[A-Za-z0-9_@*#?$!-]/

/** Deeper nesting of substitutions and subshells is refused rather than recursed into. */
const MAX_NESTING = 64

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
  let depth = 0
  const parts: CommandPart[] = []
  let part: PartState = newPart(0, true)

  const markOpaque = (why: string): void => markOpaque_(part, why)
  const append = (text: string): void => {
    part.word = (part.word ?? '') + text
  }
  const endWord = (): void => endWord_(part)
  const endPart = (end: number): void => {
    const finished = finishPart(part, s, end)
    if (finished !== undefined) parts.push(finished)
    part = newPart(end, part.collect)
  }

  /** Lexes a nested command list up to `terminator`; its commands become parts when `collect`. */
  function nested(terminator: string, collect: boolean, what: string): void {
    if (++depth > MAX_NESTING) throw new SyntaxProblem(`substitutions nested deeper than ${MAX_NESTING}`)
    const outer = part
    part = newPart(i, collect)
    const closed = lex(terminator)
    if (!closed) throw new SyntaxProblem(`an unterminated ${what}`)
    part = outer
    depth--
  }

  function readDollar(inDoubleQuotes: boolean): void {
    const next = s[i + 1]
    const expands =
      next === '(' ||
      next === '{' ||
      (next !== undefined && PARAMETER_START.test(next)) ||
      ((next === "'" || next === '"') && !inDoubleQuotes)
    if (expands) part.wordExpanding = true
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
    part.wordExpanding = true
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
            part.wordExpanding = true
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
