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
  /** The words deny and ask rules compare, or null when the program cannot be known (`denyWords`). */
  readonly denyWords: readonly string[] | null
}

import { denyWords } from './deny-words.ts'

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/
/** A part's text starts after the separator that ended the previous one. */
const LEADING_SEPARATORS = /^[\s;&|]+/

/** The lexer's state for the simple command it is reading. */
export interface PartState {
  start: number
  words: string[]
  /** Parallel to `words`: the shell computes the word (an expansion, a glob, a brace list, `~`). */
  expanding: boolean[]
  word: string | undefined
  wordExpanding: boolean
  wordQuoted: boolean
  opaque: string | undefined
  redirect: { readonly op: string } | undefined
  /** False inside `${…}`: its words are no command (substitutions in it still are). */
  readonly collect: boolean
}

export function newPart(start: number, collect: boolean): PartState {
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

/** Records the first reason a part is opaque. */
export function markOpaque(part: PartState, why: string): void {
  part.opaque ??= why
}

/** Ends the word being read: a word of the command, or the target of a pending redirection. */
export function endWord(part: PartState): void {
  const word = part.word
  if (word === undefined) return
  if (part.redirect !== undefined) {
    if (!isHarmlessRedirect(part.redirect.op, word)) markOpaque(part, 'a redirection to or from a file')
    part.redirect = undefined
  } else {
    part.words.push(word)
    part.expanding.push(part.wordExpanding)
  }
  part.word = undefined
  part.wordExpanding = false
  part.wordQuoted = false
}

/**
 * Ends a simple command at `end` of `source`: the finished part (undefined when it is empty or not
 * collected), with the opaque reasons only a whole command shows (assignments, the command name).
 */
export function finishPart(part: PartState, source: string, end: number): CommandPart | undefined {
  endWord(part)
  if (part.redirect !== undefined) {
    markOpaque(part, 'a redirection without a target')
    part.redirect = undefined
  }
  const { words, expanding } = part
  let first = 0
  while (first < words.length && ASSIGNMENT.test(words[first]!)) first++
  if (first > 0) markOpaque(part, 'an environment assignment')
  if (first < words.length && expanding[first] === true) {
    markOpaque(part, 'a command name the shell computes (an expansion, a glob, a brace list or ~)')
  }
  if (!part.collect || (words.length === 0 && part.opaque === undefined)) return undefined
  return {
    text: source.slice(part.start, end).replace(LEADING_SEPARATORS, '').trimEnd(),
    words,
    opaque: part.opaque,
    denyWords: denyWords(words, expanding),
  }
}

/** Redirections that touch no file: duplicating a descriptor, /dev/null, a here-string. */
function isHarmlessRedirect(op: string, target: string): boolean {
  if (op === '>&' || op === '<&') return /^(\d+|-)$/.test(target)
  if (op === '<<<') return true
  return ['>', '>>', '>|', '&>', '&>>', '<'].includes(op) && target === '/dev/null'
}
