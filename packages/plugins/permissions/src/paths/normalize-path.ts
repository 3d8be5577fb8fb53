/**
 * How relative and `~` paths are read, and whether letter case matters. `root` and `home` must be
 * normalized absolute paths (the config schema makes them so).
 */
export interface PathContext {
  readonly root: string
  readonly home: string | undefined
  readonly caseSensitive: boolean
  /** Also compare where symbolic links lead (see `resolveLinks`). */
  readonly followSymlinks?: boolean
}

/**
 * The form compared on a case-insensitive file system: upper- then lower-cased (so `ſ` and `s`, the
 * Kelvin sign and `k`, `ß` and `ss` are one letter, as file systems that fold case treat them),
 * then Unicode NFC (composed and decomposed `é` are one name). Applied to paths and globs alike.
 */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase().normalize('NFC')
}

/** Longer paths (Linux's PATH_MAX), longer names (NAME_MAX) and deeper paths are not matched. */
export const MAX_PATH_LENGTH = 4096
export const MAX_NAME_LENGTH = 255
export const MAX_PATH_DEPTH = 256

/** Why a normalized path is beyond the bounds matching is kept fast for, or undefined. */
function beyondLimits(path: string): string | undefined {
  if (path.length > MAX_PATH_LENGTH) return `it is longer than ${MAX_PATH_LENGTH} characters`
  let depth = 0
  let start = 0
  for (let i = 1; i <= path.length; i++) {
    if (i < path.length && path[i] !== '/') continue
    if (i - start - 1 > MAX_NAME_LENGTH) return `a name in it is longer than ${MAX_NAME_LENGTH} characters`
    if (++depth > MAX_PATH_DEPTH) return `it is deeper than ${MAX_PATH_DEPTH} directories`
    start = i
  }
  return undefined
}

const NEEDS_RESOLVING = /(?:^|\/)\.{1,2}(?:\/|$)|\/\/|\/$/

export type NormalizedPath =
  { readonly ok: true; readonly path: string } | { readonly ok: false; readonly problem: string }

/**
 * The segments of an absolute path with `.`, empty (`//`) and `..` segments resolved lexically.
 * `..` at the root stays at the root, as the kernel does (`/../etc` is `/etc`).
 */
export function resolveSegments(segments: readonly string[]): string[] {
  const out: string[] = []
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') out.pop()
    else out.push(segment)
  }
  return out
}

/**
 * The absolute, lexically normalized form of a path argument, the form rules are matched against:
 * relative paths are read against the workspace root, `~` and `~/…` against `home`, and `.`, `..`,
 * repeated and trailing slashes are resolved. On a case-insensitive file system the result is
 * case-folded and in Unicode NFC (`foldCase`). Symbolic links are not followed: this is a pure
 * function of the string. A path that cannot be read unambiguously (a NUL byte, `~user`, `~` with
 * no home) or is beyond the bounds matching is kept fast for is a problem, never a guess.
 */
export function normalizePath(input: string, context: PathContext): NormalizedPath {
  if (input.includes('\0')) return { ok: false, problem: 'it contains a NUL byte' }
  // Most paths need nothing resolved: no `.` or `..` segment, no `//`, no trailing slash.
  if (input !== '' && !input.startsWith('~') && !NEEDS_RESOLVING.test(input)) {
    const path = input.startsWith('/')
      ? input
      : context.root === '/'
        ? `/${input}`
        : `${context.root}/${input}`
    return finish(path, context)
  }
  let absolute: string
  if (input.startsWith('~')) {
    if (input !== '~' && !input.startsWith('~/')) {
      return { ok: false, problem: 'it starts with "~user", which these rules do not expand' }
    }
    if (context.home === undefined) {
      return { ok: false, problem: 'it starts with "~" and no homeDir is configured' }
    }
    absolute = `${context.home}/${input.slice(1)}`
  } else absolute = input.startsWith('/') ? input : `${context.root}/${input}`
  return finish(`/${resolveSegments(absolute.split('/')).join('/')}`, context)
}

function finish(path: string, context: PathContext): NormalizedPath {
  const problem = beyondLimits(path)
  if (problem !== undefined) return { ok: false, problem }
  return { ok: true, path: context.caseSensitive ? path : foldCase(path) }
}
