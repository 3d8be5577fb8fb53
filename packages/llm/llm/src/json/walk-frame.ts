import type { JsonValue } from '../types.ts'
import type { ShapeProblem } from './container-shape.ts'
import type { JsonLocation } from './json-path.ts'

/** A container met during the walk: still being copied (`done: false`) or copied. */
export interface Visited {
  readonly source: object
  done: boolean
  readonly target: JsonValue[] | Record<string, JsonValue>
  /** Values in it once written out (itself included), and its nesting height. */
  size: number
  height: number
}

/** A container being copied, and where it is (for messages, and for the nesting of what it holds). */
export interface Entry extends Visited {
  readonly location: JsonLocation
  readonly level: number
}

/** A container being copied by the frame walk: where its copy goes, which properties are left. */
export interface Frame extends Entry {
  readonly isArray: boolean
  /** Keys to copy (objects); arrays are walked by index. */
  keys: readonly string[] | undefined
  /**
   * Objects: read each key through its descriptor, to report non-enumerable keys in order.
   * Arrays: the elements were read in bulk and wait in the target to be replaced by their copies.
   */
  readonly precise: boolean
  readonly count: number
  /** Reported once the `count` properties before it are copied. */
  readonly failure: ShapeProblem | undefined
  index: number
}

/** Why the walk stopped, and where. */
export class Failure {
  constructor(
    readonly location: JsonLocation,
    readonly reason: string,
  ) {}
}

/** The location of `key` inside `frame`; allocated only when a path is needed. */
export function at(entry: Entry, key: string | number): JsonLocation {
  return { parent: entry.location, key }
}

export function problemAt(location: JsonLocation, problem: ShapeProblem): Failure {
  return new Failure(
    problem.at === undefined ? location : { parent: location, key: problem.at },
    problem.reason,
  )
}

export function failureIn(frame: Frame, problem: ShapeProblem): Failure {
  return problemAt(frame.location, problem)
}

/** Puts a copied value into the frame's copy. */
export function store(entry: Visited, key: string | number, value: JsonValue): void {
  const target = entry.target as Record<string | number, JsonValue>
  // Assignment to `__proto__` would set the prototype instead of keeping the key as data.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else target[key] = value
}

/**
 * Runs over the bulk-read elements of a long array while they are JSON primitives, in one tight loop
 * (a million numbers would otherwise cost a million calls); -0 becomes 0 in place. True when it
 * moved, so the caller looks at the frame again.
 */
export function skipPrimitives(frame: Frame): boolean {
  const values = frame.target as unknown[]
  const start = frame.index
  const count = frame.count
  let index = start
  for (; index < count; index += 1) {
    const value = values[index]
    if (typeof value === 'number') {
      if (value - value !== 0) break // NaN, ±Infinity: reported by `place`
      if (value === 0) values[index] = 0
    } else if (typeof value !== 'string' && typeof value !== 'boolean' && value !== null) break
  }
  frame.size += index - start
  frame.index = index
  return index > start
}
