import picomatch from 'picomatch'

/**
 * picomatch with the options every matcher here uses: POSIX separators whatever the platform
 * (picomatch would otherwise pick backslashes on Windows), and `dot` so that `*` and `**` match
 * dot files and dot directories (`/home/me/**` must cover `/home/me/.ssh/id_rsa`).
 */
export function compileGlob(patterns: string | string[], caseSensitive: boolean): (value: string) => boolean {
  return picomatch(patterns, { dot: true, windows: false, nocase: !caseSensitive })
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
