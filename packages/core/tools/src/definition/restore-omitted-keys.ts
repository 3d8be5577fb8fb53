import type { OmittedKeysPlan } from './make-optionals-nullable.ts'

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  // A defined property, so a key named "__proto__" stays a key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Undoes makeOptionalsNullable on arguments: where the plan says so, a `null` the model sent is a
 * key it omitted. Copies only the objects and arrays it changes; the input is never mutated.
 */
export function restoreOmittedKeys(value: unknown, plan: OmittedKeysPlan): unknown {
  if (Array.isArray(value)) {
    const items = plan.items
    if (items === undefined) return value
    let out: unknown[] | undefined
    value.forEach((element, i) => {
      const restored = restoreOmittedKeys(element, items)
      if (restored !== element) (out ??= [...value])[i] = restored
    })
    return out ?? value
  }
  if (!isRecord(value)) return value
  const dropped = plan.omit.filter((key) => Object.hasOwn(value, key) && value[key] === null)
  let out: Record<string, unknown> | undefined =
    dropped.length === 0
      ? undefined
      : Object.fromEntries(Object.entries(value).filter(([key]) => !dropped.includes(key)))
  for (const [key, inner] of plan.properties) {
    if (!Object.hasOwn(value, key)) continue
    const current = value[key]
    const restored = restoreOmittedKeys(current, inner)
    if (restored !== current) put((out ??= { ...value }), key, restored)
  }
  return out ?? value
}
