/** One segment of a compiled path glob. */
export type SegmentMatcher =
  | { readonly kind: 'globstar' }
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'glob'; readonly test: (segment: string) => boolean }

// The same path is usually tested against every glob of a decision: split it once.
let lastPath: string | undefined
let lastSegments: readonly string[] = []

function segmentsOf(path: string): readonly string[] {
  if (path !== lastPath) {
    lastSegments = path === '/' ? [] : path.slice(1).split('/')
    lastPath = path
  }
  return lastSegments
}

const testOne = (matcher: SegmentMatcher, segment: string): boolean =>
  matcher.kind === 'literal' ? matcher.text === segment : matcher.kind === 'glob' && matcher.test(segment)

/**
 * Whether `matchers` match the normalized absolute `path` itself or one of its ancestors (a glob
 * naming a directory covers everything beneath it), in at most (glob segments × path segments)
 * segment tests, whatever the path. One regular expression for a whole glob (what picomatch
 * builds) backtracks across `**` and `*` instead, and a chosen path can make that take seconds.
 *
 * The leading literal segments are one string comparison; the two common shapes after them (no
 * `**`; `**` then one segment) are direct loops; anything else runs as a set of positions in the
 * glob advanced over the path's segments.
 */
export function compileSegmentMatcher(matchers: readonly SegmentMatcher[]): (path: string) => boolean {
  let literal = 0
  while (literal < matchers.length && matchers[literal]!.kind === 'literal') literal++
  const prefix = matchers
    .slice(0, literal)
    .map((m) => `/${(m as { readonly text: string }).text}`)
    .join('')
  const prefixSlash = `${prefix}/`
  const underPrefix = (path: string): boolean => path === prefix || path.startsWith(prefixSlash)
  if (literal === matchers.length) return prefix === '' ? () => true : underPrefix

  const rest = matchers.slice(literal)
  const size = rest.length
  const matchRest = rest.some((m) => m.kind === 'globstar')
    ? size === 2 && rest[0]!.kind === 'globstar' && rest[1]!.kind !== 'globstar'
      ? anySegment(rest[1]!)
      : positions(rest)
    : sequence(rest)
  return (path) => (prefix === '' || underPrefix(path)) && matchRest(segmentsOf(path), literal)
}

type RestMatcher = (segments: readonly string[], from: number) => boolean

/** No `**`: the next segments match one by one (and whatever follows is beneath them). */
function sequence(rest: readonly SegmentMatcher[]): RestMatcher {
  return (segments, from) => {
    if (segments.length - from < rest.length) return false
    for (let i = 0; i < rest.length; i++) if (!testOne(rest[i]!, segments[from + i]!)) return false
    return true
  }
}

/** `**` then one segment: some later segment matches it. */
function anySegment(last: SegmentMatcher): RestMatcher {
  return (segments, from) => {
    for (let i = from; i < segments.length; i++) if (testOne(last, segments[i]!)) return true
    return false
  }
}

/** The general case: the set of glob positions reachable after each path segment. */
function positions(rest: readonly SegmentMatcher[]): RestMatcher {
  const size = rest.length
  let current = new Uint8Array(size + 1)
  let next = new Uint8Array(size + 1)
  /** Marks `from` and every position reachable from it by letting `**` match no segment. */
  const reach = (states: Uint8Array, from: number): void => {
    let at = from
    states[at] = 1
    while (at < size && rest[at]!.kind === 'globstar') states[++at] = 1
  }
  return (segments, from) => {
    current.fill(0)
    reach(current, 0)
    for (let i = from; i < segments.length; i++) {
      if (current[size] === 1) return true
      const segment = segments[i]!
      next.fill(0)
      let any = false
      for (let at = 0; at < size; at++) {
        if (current[at] !== 1) continue
        const matcher = rest[at]!
        if (matcher.kind === 'globstar') {
          reach(next, at)
          any = true
        } else if (testOne(matcher, segment)) {
          reach(next, at + 1)
          any = true
        }
      }
      if (!any) return false
      const swap = current
      current = next
      next = swap
    }
    return current[size] === 1
  }
}
