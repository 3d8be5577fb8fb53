import { types } from 'node:util'
import { frozenSnapshotFacts } from './frozen-snapshots.ts'

/**
 * Freezes `value` and every object reachable through its own data properties (string and symbol
 * keys), then returns it. Iterative, so depth is bounded only by memory; shared and cyclic references
 * are frozen once. Getters are never invoked. Typed arrays and DataViews are left as they are: the
 * engine cannot freeze views with elements. A copy made by `snapshotJsonValue(…, { freeze: true })`
 * is already deep-frozen and is returned at once.
 *
 * Meant for trusted data such as a `snapshotJsonValue` copy: a proxy is frozen through its traps.
 */
export function deepFreeze<T>(value: T): T {
  if (!isReference(value)) return value
  if (frozenSnapshotFacts(value) !== undefined) return value
  // The bookkeeping (a set of visited objects, a stack) starts with the first nested object: a
  // flat object or array (tool arguments, a small value) is frozen with one look at its properties.
  let seen: Set<object> | undefined
  let pending: object[] | undefined
  let next: object | undefined = value
  while (next !== undefined) {
    if (seen === undefined || !seen.has(next)) {
      seen?.add(next)
      if (!types.isArrayBufferView(next)) {
        Object.freeze(next)
        // names, then symbols: what `Reflect.ownKeys` lists, in its order, at less than half its cost
        const names = Object.getOwnPropertyNames(next)
        const symbols = Object.getOwnPropertySymbols(next)
        for (let i = 0; i < names.length + symbols.length; i++) {
          const key = i < names.length ? (names[i] as string) : (symbols[i - names.length] as symbol)
          const child = dataChild(next, key)
          if (child === undefined) continue
          if (pending === undefined) {
            // still on the root: it is the only object visited so far
            pending = []
            seen = new Set([value])
          }
          pending.push(child)
        }
      }
    }
    next = pending?.pop()
  }
  return value
}

/** The object held by data property `key` when it still needs freezing (never runs a getter). */
function dataChild(target: object, key: string | symbol): object | undefined {
  const descriptor = Reflect.getOwnPropertyDescriptor(target, key)
  if (descriptor === undefined || !('value' in descriptor) || !isReference(descriptor.value)) return undefined
  // Already deep-frozen: nothing below it needs a visit.
  return frozenSnapshotFacts(descriptor.value) === undefined ? descriptor.value : undefined
}

function isReference(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}
