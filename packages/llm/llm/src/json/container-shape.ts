import { constructorName } from './describe-thrown.ts'

/** Why a container is refused; `at` names the offending property when there is one. */
export interface ShapeProblem {
  readonly reason: string
  readonly at?: string | number
}

/**
 * The first key that JSON would drop or that breaks a packed array: a symbol key, a non-index
 * property, or a hole. `undefined` when `ownKeys` (the array's own keys) are exactly its indices and
 * `length`. Uses only the key list, so no user code runs.
 */
export function arrayKeysProblem(
  length: number,
  ownKeys: readonly (string | symbol)[],
): ShapeProblem | undefined {
  // Own keys list indices first, ascending: the first index that is not its position is a hole.
  let expected = 0
  for (const key of ownKeys) {
    if (typeof key !== 'string') return { reason: 'has a symbol-keyed property' }
    if (key === 'length') continue
    if (key === String(expected) && expected < length) {
      expected += 1
      continue
    }
    if (isArrayIndex(key, length)) break
    return { at: key, reason: 'is a non-index array property, which JSON would drop' }
  }
  if (expected < length) return { at: expected, reason: 'is a hole in a sparse array' }
  return undefined
}

function isArrayIndex(key: string, length: number): boolean {
  const n = Number(key)
  return Number.isInteger(n) && n >= 0 && n < length && String(n) === key
}

/** "an instance of Date", read through property descriptors only so that no getter or trap runs. */
export function nonPlainName(source: object, proto: unknown): string {
  const name = constructorName(proto)
  if (Array.isArray(source))
    return `an array with a non-standard prototype${name === undefined ? '' : ` (${name})`}`
  return name === undefined ? 'an object with a non-plain prototype' : `an instance of ${name}`
}
