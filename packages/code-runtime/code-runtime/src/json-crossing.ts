import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'
import { createJsonSnapshotter } from '@deepseek-ai/dsh-llm'

/** Deepest nesting a value may have when it crosses the sandbox boundary (as in session snapshots). */
export const MAX_JSON_DEPTH = 1000

const TOO_DEEP = `nests deeper than ${MAX_JSON_DEPTH} levels`

/**
 * The host's results are snapshotted on a hot path (every binding call): one walker reused from call
 * to call, its options fixed once, rather than a walker and an options check per call.
 */
const snapshotResult = createJsonSnapshotter({ maxDepth: MAX_JSON_DEPTH })

/** Longest start and end of a path kept in a message (the sandbox's prelude keeps the same). */
const PATH_HEAD = 60
const PATH_TAIL = 40

/**
 * `$.a is a function`; a path too long to read (one nested 1,000 levels deep has thousands of
 * characters, more than a message may hold) goes after the reason, its middle cut out at segment
 * boundaries, so the reason is never what a length cap cuts off.
 */
function describeAt(path: string, reason: string): string {
  if (path.length <= PATH_HEAD + PATH_TAIL) return `${path} ${reason}`
  let head = 0
  for (let i = 1; i <= PATH_HEAD; i++) if (path[i] === '.' || path[i] === '[') head = i
  let tail = path.length
  for (let i = path.length - 1; i >= path.length - PATH_TAIL && i > head; i--)
    if (path[i] === '.' || path[i] === '[') tail = i
  return `it ${reason} (at ${path.slice(0, Math.max(head, 1))}…${path.slice(tail)})`
}

export type Decoded =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly reason: string }

export type Encoded =
  { readonly ok: true; readonly text: string | undefined } | { readonly ok: false; readonly reason: string }

/**
 * Parses JSON text that came out of the sandbox. The sandbox already encoded it losslessly, but it
 * is untrusted: the host re-checks nesting depth and refuses `__proto__` keys, which a careless
 * consumer (a deep merge) could turn into prototype pollution.
 */
export function decodeJsonText(text: string): Decoded {
  let value: JsonValue
  try {
    value = JSON.parse(text) as JsonValue
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` }
  }
  const problem = mayHideProblem(text) ? findProblem(value) : undefined
  return problem === undefined ? { ok: true, value } : { ok: false, reason: problem }
}

/**
 * Encodes a host value for the sandbox: `undefined` stays absent, anything else must be lossless
 * JSON (the session's rules: no functions, BigInt, NaN, cycles, class instances, …) with no
 * `__proto__` key and at most {@link MAX_JSON_DEPTH} levels.
 */
export function encodeJsonValue(value: unknown): Encoded {
  if (value === undefined) return { ok: true, text: undefined }
  const snapshot = snapshotResult(value)
  if (!snapshot.ok) {
    // the snapshot's words for the depth limit, in the sandbox's (the same limit on both sides)
    const reason = snapshot.reason.startsWith('is nested deeper than') ? TOO_DEEP : snapshot.reason
    return { ok: false, reason: describeAt(snapshot.path, reason) }
  }
  const text = JSON.stringify(snapshot.value)
  const problem = mayHideProblem(text) ? findProblem(snapshot.value) : undefined
  return problem === undefined ? { ok: true, text } : { ok: false, reason: problem }
}

// Text that neither spells `__proto__` (also not through an escape) nor is long enough to nest
// MAX_JSON_DEPTH levels needs no walk: the common case costs two substring searches.
function mayHideProblem(text: string): boolean {
  return text.length > 2 * MAX_JSON_DEPTH || text.includes('__proto__') || text.includes('\\u')
}

interface Pending {
  readonly value: JsonValue
  readonly parent: Pending | undefined
  readonly key: string | number | undefined
  readonly depth: number
}

/** Walks without recursion; returns where a `__proto__` key or too-deep nesting is, if anywhere. */
function findProblem(root: JsonValue): string | undefined {
  const stack: Pending[] = [{ value: root, parent: undefined, key: undefined, depth: 0 }]
  while (stack.length > 0) {
    const item = stack.pop()!
    const { value, depth } = item
    if (typeof value !== 'object' || value === null) continue
    if (depth + 1 > MAX_JSON_DEPTH) return describeAt(pathOf(item), TOO_DEEP)
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++)
        stack.push({ value: value[i]!, parent: item, key: i, depth: depth + 1 })
      continue
    }
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return describeAt(pathOf(item), 'has a "__proto__" key')
      stack.push({ value: (value as JsonObject)[key]!, parent: item, key, depth: depth + 1 })
    }
  }
  return undefined
}

function pathOf(item: Pending): string {
  const segments: string[] = []
  for (let at: Pending | undefined = item; at?.key !== undefined; at = at.parent) {
    const key = at.key
    segments.push(
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `.${key}`
          : `[${JSON.stringify(key)}]`,
    )
  }
  return `$${segments.reverse().join('')}`
}
