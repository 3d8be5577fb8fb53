import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './errors.ts'
import type { ResolvedCodeRunLimits } from './types.ts'

const KIB = 1024
const MIB = 1024 * KIB

/** The limits a run gets when neither the runtime nor the request sets them. */
export const DEFAULT_CODE_RUN_LIMITS: ResolvedCodeRunLimits = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * MIB,
  // Kept well under V8's own stack: QuickJS's C frames run on the host's native stack (see README).
  stackBytes: 256 * KIB,
  outputBytes: 64 * KIB,
  valueBytes: 1 * MIB,
  maxConcurrentBindingCalls: 10,
  maxBindingCalls: 1_000,
})

interface Bounds {
  readonly min: number
  readonly max: number
}

// setTimeout cannot wait longer than 2^31-1 ms; the engine cannot address more than 2 GiB.
const BOUNDS: Readonly<Record<keyof ResolvedCodeRunLimits, Bounds>> = {
  timeoutMs: { min: 1, max: 2 ** 31 - 1 },
  memoryBytes: { min: 1 * MIB, max: 2 * 1024 * MIB },
  stackBytes: { min: 16 * KIB, max: 16 * MIB },
  outputBytes: { min: 1, max: 2 ** 30 },
  valueBytes: { min: 2, max: 2 ** 30 },
  maxConcurrentBindingCalls: { min: 1, max: 10_000 },
  maxBindingCalls: { min: 0, max: 10_000_000 },
}

const NAMES = Object.keys(BOUNDS) as (keyof ResolvedCodeRunLimits)[]

/**
 * Reads `limits` once (each property a single read) over `base`, and throws `INVALID_ARGUMENT`
 * naming the first bad or unknown field. `where` prefixes messages (`run(request).limits`).
 */
export function readLimits(
  limits: unknown,
  base: ResolvedCodeRunLimits,
  where: string,
): ResolvedCodeRunLimits {
  if (limits === undefined) return base
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits) || types.isProxy(limits)) {
    throw invalidArgument(`${where} must be a plain object, got ${describeValue(limits)}`)
  }
  for (const key of Object.keys(limits)) {
    if (!(NAMES as string[]).includes(key)) {
      throw invalidArgument(
        `${where} has an unknown field ${JSON.stringify(key)}; known fields: ${NAMES.join(', ')}`,
      )
    }
  }
  const resolved: Record<string, number> = { ...base }
  for (const name of NAMES) {
    const value: unknown = (limits as Record<string, unknown>)[name]
    if (value === undefined) continue
    const { min, max } = BOUNDS[name]
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw invalidArgument(
        `${where}.${name} must be an integer from ${min} to ${max}, got ${describeValue(value)}`,
      )
    }
    resolved[name] = value
  }
  return Object.freeze(resolved) as ResolvedCodeRunLimits
}
