import { isMeta } from './scanner.ts'

// Where bash expands a `~` (a tilde prefix) and where it leaves it as it is.

/** An assignment word so far (`NAME=`, `NAME+=`, `NAME[…]=`), before a compound value `(…)`. */
export const ASSIGNMENT_SO_FAR = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/

/**
 * Where the tilde prefix that starts at `at` ends (the first "/" or ":", or the end of the word:
 * bash 5.2 turns `~:a` into `$HOME:a`), or undefined when a character of it is quoted or starts an
 * expansion: then bash leaves the "~" as it is (`~"root"`, `~r\oot` and `~ro$X` are not expanded).
 */
export function tildePrefixEnd(s: string, at: number): number | undefined {
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
export function startsTildePrefix(s: string, start: number, at: number): boolean {
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
