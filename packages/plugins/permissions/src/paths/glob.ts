import picomatch from 'picomatch'

/**
 * A matcher for any of `patterns`, compiled by picomatch with the options every matcher here uses:
 * POSIX separators whatever the platform (picomatch would otherwise pick backslashes on Windows),
 * and `dot` so that `*` and `**` match dot files and dot directories (`/home/me/**` must cover
 * `/home/me/.ssh/id_rsa`). Only the regular expressions are kept: testing one allocates nothing,
 * where picomatch's own matcher builds a result object per test.
 */
export function compileGlob(
  patterns: string | readonly string[],
  caseSensitive: boolean,
): (value: string) => boolean {
  const options = { dot: true, windows: false, nocase: !caseSensitive }
  const regexes = (typeof patterns === 'string' ? [patterns] : patterns).map((p) =>
    picomatch.makeRe(p, options),
  )
  if (regexes.length === 1) {
    const [only] = regexes
    return (value) => only!.test(value)
  }
  return (value) => {
    for (const regex of regexes) if (regex.test(value)) return true
    return false
  }
}

/** True when `segment` holds glob syntax (`*`, `?`, `[…]`, `{…}`, extglobs). */
export function isGlobSegment(segment: string): boolean {
  return picomatch.scan(segment).isGlob
}

/** A literal path segment written into a pattern: every character glob syntax gives a meaning is escaped. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{}()!+@|,^$]/g, '\\$&')
}

/**
 * Root-independent problems of a glob written in a rule, or undefined. Negation is refused: a rule
 * that matched "everything but X" would turn into its opposite under the directory rule (a pattern
 * also covers what lies beneath it), and exceptions are written as an earlier rule instead.
 */
export function globProblem(
  pattern: string,
  options: { readonly inRule?: boolean } = {},
): string | undefined {
  if (pattern === '') return 'a glob must not be empty'
  if (pattern.length > 4096) return `a glob must be at most 4096 characters (got ${pattern.length})`
  if (pattern.includes('\0')) return 'a glob must not contain a NUL byte'
  if (pattern.startsWith('!')) {
    const hint = options.inRule === true ? '; put the exception in an earlier rule of the layer instead' : ''
    return `negated globs ("!…") are not supported${hint}`
  }
  try {
    picomatch.makeRe(pattern, { dot: true, windows: false })
  } catch (error) {
    return `not a valid glob: ${error instanceof Error ? error.message : String(error)}`
  }
  return undefined
}
