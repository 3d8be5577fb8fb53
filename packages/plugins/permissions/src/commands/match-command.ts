import { splitCommand } from './split-command.ts'

/**
 * Words a deny or ask rule looks past at the start of a command: shell keywords and wrappers that
 * run the rest of the line as a command (when not followed by an option, which would need the
 * wrapper's own option grammar). Allow rules never look past anything.
 */
const TRANSPARENT = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
  'builtin',
  'command',
  'exec',
  'nohup',
  'nice',
  'env',
  'sudo',
  'doas',
  'xargs',
])
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/

/**
 * The words a deny or ask rule compares: leading keywords, wrappers and environment assignments
 * dropped (`sudo FOO=1 /bin/rm -rf /` → `rm -rf /`), and the command name reduced to its last path
 * segment. Looser than the shell on purpose: a deny should catch `/bin/rm` when it names `rm`.
 */
export function restrictiveWords(words: readonly string[]): readonly string[] {
  let first = 0
  while (first < words.length) {
    const word = words[first]!
    if (ASSIGNMENT.test(word)) first++
    else if (TRANSPARENT.has(word) && !(words[first + 1] ?? '').startsWith('-')) first++
    else break
  }
  if (first >= words.length) return []
  const name = words[first]!
  const slash = name.lastIndexOf('/')
  if (first === 0 && slash < 0) return words
  return [name.slice(slash + 1), ...words.slice(first + 1)]
}

/**
 * Whether a command part is covered by a rule's prefix (its words, as `splitCommand` reads them).
 * - `strict` (allow rules): the part must not be opaque and its words must start with the prefix
 *   exactly (`./git` is not `git`).
 * - otherwise (deny and ask rules): the words after `restrictiveWords` must start with the prefix.
 * With `exact` the words must equal the prefix instead of starting with it.
 */
export function matchesCommand(
  part: { readonly words: readonly string[]; readonly opaque: string | null | undefined },
  prefix: readonly string[],
  options: { readonly strict: boolean; readonly exact: boolean },
): boolean {
  let words: readonly string[]
  if (options.strict) {
    if (part.opaque !== undefined && part.opaque !== null) return false
    words = part.words
  } else words = restrictiveWords(part.words)
  if (options.exact ? words.length !== prefix.length : words.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (words[i] !== prefix[i]) return false
  return true
}

/** The words of a command prefix written in a rule, or the problem with it. */
export function parseCommandPrefix(
  text: string,
):
  | { readonly ok: true; readonly words: readonly string[] }
  | { readonly ok: false; readonly problem: string } {
  if (/:\*\s*$/.test(text)) {
    return {
      ok: false,
      problem: 'write the prefix without ":*" (every prefix already covers what follows it)',
    }
  }
  if (/[*?]/.test(text)) {
    return { ok: false, problem: 'a command prefix is literal words; it has no glob syntax ("*", "?")' }
  }
  const split = splitCommand(text)
  if (!split.ok)
    return { ok: false, problem: `a command prefix must be valid shell words, but ${split.problem}` }
  const opaque = split.parts.find((p) => p.opaque !== undefined)?.opaque
  if (opaque !== undefined)
    return { ok: false, problem: `a command prefix must be plain words (it has ${opaque})` }
  if (split.parts.length !== 1) {
    return {
      ok: false,
      problem:
        split.parts.length === 0
          ? 'a command prefix must have at least one word'
          : 'a command prefix must be one simple command (it has a separator such as ";", "&&" or "|")',
    }
  }
  return { ok: true, words: split.parts[0]!.words }
}
