import { splitCommand } from './split-command.ts'

/**
 * Whether a command part is covered by a rule's prefix (its words, as `splitCommand` reads them).
 * - `strict` (allow rules): the part must not be opaque and its words must start with the prefix
 *   exactly (`./git` is not `git`).
 * - otherwise (deny and ask rules): its `denyWords` must start with the prefix; a command whose
 *   program cannot be known (`denyWords` null) matches every prefix.
 * With `exact` the words must equal the prefix instead of starting with it.
 */
export function matchesCommand(
  part: {
    readonly words: readonly string[]
    readonly opaque: string | null | undefined
    readonly denyWords: readonly string[] | null
  },
  prefix: readonly string[],
  options: { readonly strict: boolean; readonly exact: boolean },
): boolean {
  let words: readonly string[]
  if (options.strict) {
    if (part.opaque !== undefined && part.opaque !== null) return false
    words = part.words
  } else if (part.denyWords === null) return true
  else words = part.denyWords
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
