import { inspect, types } from 'node:util'
import { arrayKeysProblem, type ShapeProblem } from './container-shape.ts'
import { describeThrown } from './describe-thrown.ts'

/** The elements of a long plain array, each read once, in a fresh array that may serve as the copy. */
export interface ArrayElements {
  readonly values: unknown[]
  /** How many leading `values` to copy; fewer than the array's length only before `failure`. */
  readonly count: number
  /** Reported once the `count` elements before it are copied (an element JSON cannot hold). */
  readonly failure: ShapeProblem | undefined
}

const objectValues = Object.values
const ownSymbols = Object.getOwnPropertySymbols
const hasOwn = Object.hasOwn
const isEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable) as (
  target: object,
  key: number,
) => boolean

/**
 * Arrays at least this long are read in bulk, and have their keys checked through `util.inspect`
 * (cost independent of the length) rather than `Reflect.ownKeys`, which makes a string per index:
 * 0.6 s for a million elements. Shorter ones are read element by element, in walk order.
 */
export const LONG_ARRAY = 128

/**
 * Why a short array is not a JSON array (a symbol key, a non-index property, a hole), from its key
 * list alone; `undefined` when its own keys are exactly its indices and `length`.
 */
export function shortArrayProblem(source: unknown[]): ShapeProblem | undefined {
  const length = source.length
  const keys = Reflect.ownKeys(source)
  if (keys.length === length + 1 && keys[length] === 'length') return undefined
  return arrayKeysProblem(length, keys)
}

/**
 * Reads the elements of a long array whose prototype is `Array.prototype` (and is no proxy) in one
 * bulk `Object.values` call, or says why the array is not a JSON array: a symbol key, a non-index
 * property, a hole, a non-enumerable element or a getter that threw. Each getter runs at most once,
 * all of them before any element is copied.
 */
export function readLongArray(source: unknown[]): ArrayElements | ShapeProblem {
  const length = source.length
  if (!hasOnlyIndexKeys(source, length)) {
    const problem = arrayKeysProblem(length, Reflect.ownKeys(source))
    if (problem !== undefined) return problem
  }
  let values: unknown[]
  try {
    values = objectValues(source)
  } catch (error) {
    return getterFailure(source, length, error)
  }
  if (values.length === length) return { values, count: length, failure: undefined }
  // `Object.values` skipped elements: holes (perhaps made by a getter) or non-enumerable elements.
  for (let index = 0; index < length; index += 1) {
    if (!hasOwn(source, index)) return { at: index, reason: 'is a hole in a sparse array' }
  }
  let enumerable = 0
  while (enumerable < length && isEnumerable(source, enumerable)) enumerable += 1
  if (enumerable === length) return { reason: 'changed while its elements were read' }
  // The enumerable elements before the first non-enumerable one are the first values, in order.
  return {
    values,
    count: enumerable,
    failure: { at: enumerable, reason: 'is a non-enumerable property' },
  }
}

/** True when the array's own keys are only indices and `length`; a cheap check, never a wrong yes. */
function hasOnlyIndexKeys(source: unknown[], length: number): boolean {
  if (!inspectionIsSafe(source)) {
    const keys = Reflect.ownKeys(source)
    return keys.length === length + 1 && keys[length] === 'length'
  }
  // `inspect` lists the own non-index keys (enumerable or not) without reading the elements when
  // `maxArrayLength` is 0, so it matches a bare array of the same length exactly when there are none.
  // A format difference can only make the answer "no", which falls back to the exact key check.
  const bare: unknown[] = []
  bare.length = length
  return inspect(source, INSPECT_KEYS) === inspect(bare, INSPECT_KEYS)
}

const INSPECT_KEYS = {
  showHidden: true,
  maxArrayLength: 0,
  depth: 0,
  customInspect: false,
  getters: false,
  showProxy: false,
  breakLength: Infinity,
  compact: true,
} as const

/**
 * Whether `inspect` can look at the array without running user code: it reads `Symbol.toStringTag`
 * through the prototype chain and calls `instanceof` on an own `constructor`.
 */
function inspectionIsSafe(source: unknown[]): boolean {
  return (
    !types.isProxy(source) &&
    !hasOwn(source, 'constructor') &&
    ownSymbols(source).length === 0 &&
    !(Symbol.toStringTag in source)
  )
}

/**
 * Where a getter threw during the bulk read, found through descriptors only (no getter runs again).
 * With one getter, the elements before it are data properties: they are returned to be copied
 * first, so a problem inside one of them is reported before the getter, as a walk in order would.
 */
function getterFailure(source: unknown[], length: number, error: unknown): ArrayElements | ShapeProblem {
  const thrown = describeThrown(error)
  let first = -1
  for (let index = 0; index < length; index += 1) {
    const descriptor = Reflect.getOwnPropertyDescriptor(source, index)
    if (descriptor === undefined || 'value' in descriptor) continue
    if (first !== -1) {
      // The bulk read does not say which of several getters threw.
      return { reason: `has getters on its elements, and one of them threw (${thrown})` }
    }
    first = index
  }
  if (first === -1) return { reason: `could not be read (${thrown})` }
  const values: unknown[] = []
  for (let index = 0; index < first; index += 1) {
    const descriptor = Reflect.getOwnPropertyDescriptor(source, index)
    // The getter may have deleted or hidden an element before throwing: that comes first.
    if (descriptor === undefined) return { at: index, reason: 'is a hole in a sparse array' }
    if (descriptor.enumerable !== true)
      return { values, count: index, failure: { at: index, reason: 'is a non-enumerable property' } }
    values.push(descriptor.value)
  }
  return { values, count: first, failure: { at: first, reason: `has a getter that threw (${thrown})` } }
}
