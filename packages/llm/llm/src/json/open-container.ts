import { types } from 'node:util'
import type { JsonValue } from '../types.ts'
import { nonPlainName } from './container-shape.ts'
import type { JsonLocation } from './json-path.ts'
import { LONG_ARRAY, readLongArray, shortArrayProblem } from './read-array-elements.ts'
import { Failure, problemAt, type Frame } from './walk-frame.ts'

/** Objects with more keys are read through descriptors (one lookup per key instead of two). */
const MANY_KEYS = 64

const objectKeys = Object.keys
const ownNames = Object.getOwnPropertyNames
const ownSymbols = Object.getOwnPropertySymbols
const getPrototypeOf = Reflect.getPrototypeOf
const isArray = Array.isArray
const { isBoxedPrimitive } = types
const OBJECT_PROTOTYPE = Object.prototype
const ARRAY_PROTOTYPE = Array.prototype

/**
 * What `plainShape` found: a short plain array's length (a number), or a plain object's keys, all
 * enumerable (an array of strings). No wrapper object: it is made once per container copied.
 */
export type PlainShape = number | string[]

/**
 * The same checks as `openContainer`, in the same order, for the containers a walk can copy key by
 * key without further bookkeeping: a short array without holes or extra keys, an object with at
 * most `MANY_KEYS` keys, all enumerable. `undefined` for anything else that is still JSON (a long
 * array, an object with many or non-enumerable keys), which the frame walk copies. No user code
 * runs here (proxies were ruled out before).
 */
export function plainShape(source: object, location: JsonLocation): PlainShape | Failure | undefined {
  const proto = getPrototypeOf(source)
  if (isArray(source)) {
    if (proto !== ARRAY_PROTOTYPE) {
      return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
    }
    const array = source as unknown[]
    if (array.length >= LONG_ARRAY) return undefined
    const problem = shortArrayProblem(array)
    return problem === undefined ? array.length : problemAt(location, problem)
  }
  if (proto !== OBJECT_PROTOTYPE && proto !== null) {
    return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
  }
  if (isBoxedPrimitive(source)) return new Failure(location, 'is a boxed primitive, not a plain object')
  if (ownSymbols(source).length > 0) return new Failure(location, 'has a symbol-keyed property')
  const names = ownNames(source)
  if (names.length > MANY_KEYS) return undefined
  const keys = objectKeys(source)
  return names.length === keys.length ? keys : undefined
}

/**
 * Validates a container met at `location` (its prototype, its keys) and makes the frame that will
 * copy its properties; short arrays and small objects are read key by key later, long arrays now,
 * in bulk. Proxies were ruled out before: nothing here can run a trap.
 */
export function openContainer(
  source: object,
  location: JsonLocation,
  level: number,
  maxDepth: number,
): Frame | Failure {
  if (level > maxDepth) {
    return new Failure(location, `is nested deeper than maxDepth (${maxDepth})`)
  }
  const proto = getPrototypeOf(source)
  let frame: Frame
  if (isArray(source)) {
    if (proto !== ARRAY_PROTOTYPE) {
      return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
    }
    const array = source as unknown[]
    if (array.length < LONG_ARRAY) {
      const problem = shortArrayProblem(array)
      if (problem !== undefined) return problemAt(location, problem)
      frame = {
        done: false,
        target: [],
        size: 1,
        height: 1,
        source,
        isArray: true,
        keys: undefined,
        precise: false,
        count: array.length,
        failure: undefined,
        location,
        level,
        index: 0,
      }
    } else {
      const elements = readLongArray(array)
      if ('reason' in elements) return problemAt(location, elements)
      frame = {
        done: false,
        target: elements.values as JsonValue[],
        size: 1,
        height: 1,
        source,
        isArray: true,
        keys: undefined,
        precise: true,
        count: elements.count,
        failure: elements.failure,
        location,
        level,
        index: 0,
      }
    }
  } else {
    if (proto !== OBJECT_PROTOTYPE && proto !== null) {
      return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
    }
    // JSON.stringify would unbox these even with a plain prototype, so the copy could not match.
    if (isBoxedPrimitive(source)) return new Failure(location, 'is a boxed primitive, not a plain object')
    if (ownSymbols(source).length > 0) return new Failure(location, 'has a symbol-keyed property')
    const names = ownNames(source)
    // Few keys: `Object.keys` (cached by the engine per shape) shows whether all are enumerable,
    // and each is then read directly. Many keys, or non-enumerable ones (which JSON would drop,
    // reported in key order among the others): one descriptor per key, one lookup each.
    const keys = names.length <= MANY_KEYS ? objectKeys(source) : undefined
    const precise = keys === undefined || names.length !== keys.length
    frame = {
      done: false,
      target: {},
      size: 1,
      height: 1,
      source,
      isArray: false,
      keys: precise ? names : keys,
      precise,
      count: names.length,
      failure: undefined,
      location,
      level,
      index: 0,
    }
  }
  return frame
}
