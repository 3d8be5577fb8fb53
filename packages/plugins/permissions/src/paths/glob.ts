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

/** How one segment of a path glob is matched: as a string, or as a glob. */
export type ReadSegment =
  { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'glob'; readonly glob: string }

/**
 * Reads one glob segment. Only `*`, `?`, `[…]` and `{…}` are glob syntax; a backslash escapes the
 * next character. Everything else is literal — also `(`, `)` and `|`, which picomatch would read as
 * a regular-expression group (`file (1).txt` must match the file of that name, not `file 1.txt`).
 */
export function readSegment(segment: string): ReadSegment {
  let literal = ''
  let glob = ''
  let magic = false
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!
    if (c === '\\' && i + 1 < segment.length) {
      literal += segment[i + 1]
      glob += `\\${segment[i + 1]}`
      i++
    } else if (c === '(' || c === ')' || c === '|') {
      literal += c
      glob += `\\${c}`
    } else {
      if (c === '*' || c === '?' || c === '[' || c === ']' || c === '{' || c === '}') magic = true
      literal += c
      glob += c
    }
  }
  return magic ? { kind: 'glob', glob } : { kind: 'literal', text: literal }
}

/** True when `segment` holds glob syntax (see `readSegment`). */
export function isGlobSegment(segment: string): boolean {
  return readSegment(segment).kind === 'glob'
}

/** A literal path segment written into a pattern: every character glob syntax gives a meaning is escaped. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{}()!+@|,^$]/g, '\\$&')
}

/** Each glob segment compiles to a backtracking regular expression; this bound keeps it fast. */
export const MAX_STARS_PER_SEGMENT = 2

/**
 * Shapes whose regular expression can take polynomial or exponential time on a name an attacker
 * chooses: extglobs (nested quantifiers), more than two `*` in one segment (`*a*a*b` is cubic in
 * the name's length). Also a `/` inside `{…}` or `[…]`: globs are matched segment by segment.
 * Escaped characters do not count.
 */
function unsupportedShape(pattern: string): string | undefined {
  let stars = 0
  let braces = 0
  let bracket = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      i++
      continue
    }
    if (bracket) {
      if (c === ']') bracket = false
      else if (c === '/') return 'a "/" inside "[…]" is not supported'
      continue
    }
    if (c === '[') bracket = true
    else if (c === '{') braces++
    else if (c === '}' && braces > 0) braces--
    else if (c === '/') {
      if (braces > 0) return 'a "/" inside "{…}" is not supported; write one glob per alternative'
      stars = 0
    } else if (pattern[i + 1] === '(' && (c === '@' || c === '!' || c === '+' || c === '*' || c === '?')) {
      return `extglobs such as "${c}(…)" are not supported (they can make matching take exponential time)`
    } else if (c === '*') {
      const segmentStart = pattern.lastIndexOf('/', i) + 1
      const segmentEnd = pattern.indexOf('/', i)
      if (pattern.slice(segmentStart, segmentEnd < 0 ? undefined : segmentEnd) === '**') {
        i++
        continue
      }
      if (++stars > MAX_STARS_PER_SEGMENT) {
        return `a glob may have at most ${MAX_STARS_PER_SEGMENT} "*" in one segment (more can make matching take exponential time)`
      }
    }
  }
  return undefined
}

/**
 * Root-independent problems of a glob written in a rule, or undefined. Negation is refused: a rule
 * that matched "everything but X" would turn into its opposite under the directory rule (a pattern
 * also covers what lies beneath it), and exceptions are written as an earlier rule instead. Shapes
 * that could make matching slow are refused too (`unsupportedShape`).
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
  const unsupported = unsupportedShape(pattern)
  if (unsupported !== undefined) return unsupported
  try {
    picomatch.makeRe(pattern, { dot: true, windows: false })
  } catch (error) {
    return `not a valid glob: ${error instanceof Error ? error.message : String(error)}`
  }
  return undefined
}
