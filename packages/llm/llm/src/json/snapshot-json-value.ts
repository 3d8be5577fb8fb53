import { types } from 'node:util'
import { describeValue } from '../describe-value.ts'
import { LlmError } from '../errors.ts'
import { SnapshotWalker, snapshotPrimitive, type SnapshotResult } from './snapshot-walker.ts'

export type { SnapshotResult } from './snapshot-walker.ts'

export interface SnapshotOptions {
  /** Deepest allowed nesting of objects/arrays; the top-level container is level 1. Default 1000. */
  readonly maxDepth?: number
  /**
   * Deep-freeze the copy as it is made (default `false`). A frozen copy is remembered: a later
   * `snapshotJsonValue(…, { freeze: true })`, `deepFreeze` or session `append` that meets it takes it
   * as it is instead of walking it again.
   */
  readonly freeze?: boolean
}

export const DEFAULT_MAX_DEPTH = 1000

const DEFAULTS = { maxDepth: DEFAULT_MAX_DEPTH, freeze: false }

/**
 * Copies `value` into plain objects and arrays that survive `JSON.parse(JSON.stringify(copy))`
 * deep-equal, or reports the first place where that is impossible, as a JSONPath-like `path`
 * (`$`, `$.a[2].b`) and a `reason` that reads after it ("is a BigInt").
 *
 * Rejected: BigInt, NaN and ±Infinity, functions, symbols and symbol-keyed properties, `undefined` at
 * the top level or inside an array, holes in sparse arrays, extra non-index properties on arrays,
 * non-enumerable own properties, getters that throw, proxies (including revoked ones), cycles (a
 * value that is its own ancestor), boxed primitives, anything whose prototype is not
 * `Object.prototype`/`null` (objects) or `Array.prototype` (arrays) — Date, Map, Set, RegExp, typed
 * arrays, errors, class instances — and nesting deeper than `maxDepth`.
 *
 * Normalized, as `JSON.stringify` would: object properties whose value is `undefined` are dropped;
 * `-0` becomes `0`; null-prototype objects become plain objects. A getter that returns a JSON value is
 * read once and its value copied. `__proto__` own keys are kept as plain data. An object reached twice
 * without a cycle is copied once and shared the same way in the copy; sharing may not hide nesting
 * beyond `maxDepth` nor add more than 1,000,000 values to the written-out JSON (an exponential "JSON
 * bomb" built from a few shared levels is rejected).
 *
 * With `freeze: true` the copy is deep-frozen, and frozen copies met inside `value` are reused by
 * reference: they are immutable, so sharing them keeps the copy detached.
 *
 * Never throws for any `value` (hostile proxies and throwing getters are reported; nesting past the
 * first 64 levels is walked without recursion, so depth is bounded by `maxDepth` only); throws
 * `LlmError` `INVALID_ARGUMENT` only for invalid `options` (`SessionError` when called through
 * `@deepseek-ai/dsh-session`, which re-exports it).
 *
 * @example
 * snapshotJsonValue({ a: [1, 2n] }) // { ok: false, path: '$.a[1]', reason: 'is a BigInt' }
 */
export function snapshotJsonValue(value: unknown, options?: SnapshotOptions): SnapshotResult {
  const { maxDepth, freeze } = options === undefined ? DEFAULTS : readOptions(options)
  if (typeof value !== 'object' || value === null) return snapshotPrimitive(value)
  return new SnapshotWalker(maxDepth, freeze).run(value)
}

function readOptions(options: SnapshotOptions): { maxDepth: number; freeze: boolean } {
  const where = 'snapshotJsonValue(value, options)'
  if (typeof options !== 'object' || options === null || types.isProxy(options)) {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options must be a plain object, got ${describeValue(options)}`,
    })
  }
  const { maxDepth, freeze } = options
  if (freeze !== undefined && typeof freeze !== 'boolean') {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.freeze must be a boolean, got ${describeValue(freeze)}`,
    })
  }
  if (maxDepth === undefined) return { maxDepth: DEFAULT_MAX_DEPTH, freeze: freeze === true }
  if (typeof maxDepth !== 'number' || !Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.maxDepth must be a non-negative integer, got ${describeValue(maxDepth)}`,
    })
  }
  return { maxDepth, freeze: freeze === true }
}
