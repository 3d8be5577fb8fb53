import { compileGlob, escapeGlob, globProblem, isGlobSegment, readSegment } from './glob.ts'
import { compileSegmentMatcher, type SegmentMatcher } from './match-segments.ts'
import { foldCase, type PathContext } from './normalize-path.ts'

/** One path glob of a rule, in the absolute normalized form it is compared in. */
export interface CompiledPathPattern {
  /** As written in the rule. */
  readonly pattern: string
  /** Absolute, `.`/`..`/`//` resolved; literal parts taken from the root or home are escaped. */
  readonly normalized: string
  /** Matches the normalized path of an argument: the pattern itself or anything beneath it. */
  readonly test: (normalizedPath: string) => boolean
}

interface Segment {
  readonly text: string
  /** From the workspace root or home directory: matched literally, whatever characters it holds. */
  readonly literal: boolean
}

const literalSegments = (path: string): Segment[] =>
  path
    .split('/')
    .filter((s) => s !== '')
    .map((text) => ({ text, literal: true }))

/**
 * Root-independent problems of a path glob (the rule schema reports them), or undefined: the glob
 * problems, and a `..` that follows a glob segment (`src/**\/../x` names no fixed directory).
 */
export function pathPatternProblem(pattern: string): string | undefined {
  const problem = globProblem(pattern, { inRule: true })
  if (problem !== undefined) return problem
  const segments = pattern.split('/')
  for (let i = 1; i < segments.length; i++) {
    if (segments[i] === '..' && segments.slice(0, i).some((s) => s !== '..' && isGlobSegment(s))) {
      return 'a ".." segment after a glob segment cannot be resolved'
    }
  }
  return undefined
}

function segmentMatcher(segment: Segment, caseSensitive: boolean): SegmentMatcher {
  if (segment.literal) return { kind: 'literal', text: segment.text }
  if (segment.text === '**') return { kind: 'globstar' }
  const read = readSegment(segment.text)
  return read.kind === 'literal' ? read : { kind: 'glob', test: compileGlob(read.glob, caseSensitive) }
}

/**
 * Compiles a path glob against the workspace root (relative globs), the home directory (`~/…`)
 * and the case rule. A glob names a file or a directory; naming a directory covers everything
 * beneath it, so `/etc` and `/etc/**` deny the same paths. Each segment is a picomatch glob;
 * `compileSegmentMatcher` combines them in bounded time.
 */
export function compilePathPattern(
  pattern: string,
  context: PathContext,
):
  | { readonly ok: true; readonly compiled: CompiledPathPattern }
  | { readonly ok: false; readonly problem: string } {
  const problem = pathPatternProblem(pattern)
  if (problem !== undefined) return { ok: false, problem }
  let base: Segment[]
  let rest: string
  if (pattern.startsWith('~')) {
    if (pattern !== '~' && !pattern.startsWith('~/')) {
      return { ok: false, problem: 'a glob starting with "~user" is not supported' }
    }
    if (context.home === undefined) {
      return { ok: false, problem: 'the glob starts with "~" and no homeDir is configured' }
    }
    base = literalSegments(context.home)
    rest = pattern.slice(1)
  } else if (pattern.startsWith('/')) {
    base = []
    rest = pattern
  } else {
    base = literalSegments(context.root)
    rest = pattern
  }
  const fold = (text: string): string => (context.caseSensitive ? text : foldCase(text))
  const out: Segment[] = base.map((s) => ({ text: fold(s.text), literal: true }))
  for (const text of rest.split('/')) {
    if (text === '' || text === '.') continue
    if (text === '..') {
      const last = out.at(-1)
      if (last !== undefined && !last.literal && isGlobSegment(last.text)) {
        return { ok: false, problem: 'a ".." segment after a glob segment cannot be resolved' }
      }
      out.pop()
    } else out.push({ text: fold(text), literal: false })
  }
  // Consecutive `**` match what one does.
  const segments = out.filter(
    (s, i) => !(s.text === '**' && !s.literal && out[i - 1]?.text === '**' && !out[i - 1]!.literal),
  )
  const normalized = `/${segments.map((s) => (s.literal ? escapeGlob(s.text) : s.text)).join('/')}`
  let test: (path: string) => boolean
  try {
    test = compileSegmentMatcher(segments.map((s) => segmentMatcher(s, context.caseSensitive)))
  } catch (error) {
    return {
      ok: false,
      problem: `not a valid glob: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  return { ok: true, compiled: { pattern, normalized, test } }
}
