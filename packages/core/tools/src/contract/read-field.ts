import { invalidArgument } from './errors.ts'
import { describeThrown } from './results.ts'

/**
 * `object[key]`, read once. A getter (or a proxy) that throws is the caller's mistake, like a field
 * of the wrong type: a `ToolsError` naming the field (T20).
 */
export function readField(where: string, label: string, object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key]
  } catch (error) {
    throw invalidArgument(`${where}: reading ${label}.${key} threw: ${describeThrown(error)}`)
  }
}

/**
 * Refuses an object with fields other than `fields` (its own enumerable keys; no getter runs): a
 * misspelt field (`feedbak`, `scop`) or one the object does not have (`grantAll`) would otherwise be
 * recorded and ignored, and the answer would mean something other than what its author wrote. A
 * field set to `undefined` says nothing and counts as absent.
 */
export function refuseUnknownFields(
  where: string,
  label: string,
  object: object,
  fields: readonly string[],
  what: string,
): void {
  let unknown: string[]
  try {
    unknown = Object.keys(object).filter((key) => !fields.includes(key) && !saysNothing(object, key))
  } catch (error) {
    throw invalidArgument(`${where}: listing the fields of ${label} threw: ${describeThrown(error)}`)
  }
  if (unknown.length === 0) return
  throw invalidArgument(
    `${where}: ${label} has unknown field(s) ${unknown.map((key) => JSON.stringify(key)).join(', ')}; ${what} has only ${fields.join(', ')}`,
  )
}

/** A data field whose value is `undefined` (read from its descriptor: no getter runs). */
function saysNothing(object: object, key: string): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(object, key)
  return descriptor !== undefined && 'value' in descriptor && descriptor.value === undefined
}
