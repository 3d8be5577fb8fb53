import { types } from 'node:util'
import { frozenSnapshotFacts } from './snapshot/frozen-snapshots.ts'

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
        for (const key of Reflect.ownKeys(next)) {
          const descriptor = Reflect.getOwnPropertyDescriptor(next, key)
          if (descriptor === undefined || !('value' in descriptor) || !isReference(descriptor.value)) continue
          // Already deep-frozen: nothing below it needs a visit.
          if (frozenSnapshotFacts(descriptor.value) !== undefined) continue
          if (pending === undefined) {
            // still on the root: it is the only object visited so far
            pending = []
            seen = new Set([value])
          }
          pending.push(descriptor.value)
        }
      }
    }
    next = pending?.pop()
  }
  return value
}

function isReference(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}
