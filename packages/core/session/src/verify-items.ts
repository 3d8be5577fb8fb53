/**
 * Lenient readers shared by the replay checks (`verifyToolPairs` and its parts): a log under check
 * may hold anything, so each reader answers `undefined` or `false` instead of throwing.
 */

/** The fields of a log entry the checks read, once it has a numeric seq and a string type. */
export type Item = { seq: number; type: string; data: unknown; sourceEventSeqs: unknown }

export function asItem(value: unknown): Item | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { seq, type, data, sourceEventSeqs } = value as Record<string, unknown>
  return typeof seq === 'number' && typeof type === 'string'
    ? { seq, type, data, sourceEventSeqs }
    : undefined
}

/** `value` as a plain record, or `undefined` for anything else (arrays included). */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** A non-negative safe integer (a turn, a step, a seq). */
export const count = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
