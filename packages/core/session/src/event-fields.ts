import { describeValue } from '@deepseek-ai/dsh-llm'
import type { SurfaceOp } from './types.ts'

export const SURFACE_OPS: readonly SurfaceOp[] = ['append', 'replace', 'remove']

export const MAX_TYPE_LENGTH = 200

/** Why `value` is not a valid `surfaceOp`, or `undefined` when it is. */
export function surfaceOpProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && (SURFACE_OPS as readonly string[]).includes(value)) return undefined
  return `must be one of ${SURFACE_OPS.map((op) => JSON.stringify(op)).join(', ')}, got ${describeValue(value)}`
}

/** Why `value` is not a valid `sourceEventSeqs` for an event numbered `seq`, or `undefined`. */
export function sourceEventSeqsProblem(value: unknown, seq: number): string | undefined {
  if (!Array.isArray(value)) return `must be an array of earlier seqs, got ${describeValue(value)}`
  const seen = new Set<number>()
  for (const [index, cited] of (value as unknown[]).entries()) {
    if (typeof cited !== 'number' || !Number.isInteger(cited) || cited < 1) {
      return `[${index}] must be an integer ≥ 1, got ${describeValue(cited)}`
    }
    // An event can only derive from events that exist before it.
    if (cited >= seq) return `[${index}] is ${cited}, which is not an earlier event than seq ${seq}`
    if (seen.has(cited)) return `[${index}] repeats seq ${cited}`
    seen.add(cited)
  }
  return undefined
}

/** Why `value` is not a valid event type, or `undefined`. */
export function eventTypeProblem(value: unknown, maxLength: number = MAX_TYPE_LENGTH): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${describeValue(value)}`
  if (value.length === 0) return 'must not be empty'
  if (value.length > maxLength) return `must be at most ${maxLength} characters, got ${value.length}`
  return undefined
}
