import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import type { CodeRunLimits } from '../presentation/code-runtime-types.ts'
import { DEFAULT_MAX_PARALLEL_TOOL_CALLS } from '../contract/check-batch-input.ts'

/** Options of `installCodeMode(ctx, options)`. */
export interface CodeModeOptions {
  /**
   * Nested calls of one program running at once (T33): the rolling pool of the program's batch,
   * and the runtime's `maxConcurrentBindingCalls` (default 10).
   */
  readonly maxParallelSubCalls?: number
  /**
   * Nested calls one program may have on the host at once (default 4 × `maxParallelSubCalls`):
   * running, waiting for a pool slot or a barrier, or finished and waiting for an earlier call's
   * result (results reach the program in call order). Further calls wait inside the sandbox, their
   * arguments counted against its memory. This is the runtime's `maxConcurrentBindingCalls`; it
   * must be at least `maxParallelSubCalls`, or a slow call would keep the pool from refilling.
   */
  readonly maxPendingSubCalls?: number
  /**
   * Limits of every run, passed to `ctx.codeRuntime.run` (omitted ones use the runtime's
   * defaults). `maxConcurrentBindingCalls` is not among them: it is `maxPendingSubCalls`.
   */
  readonly limits?: Omit<CodeRunLimits, 'maxConcurrentBindingCalls'>
  /**
   * Largest text a `run_code` result gives the model (the return value and the logs), in UTF-8
   * bytes (default 32 KiB). Past it the logs are cut in the middle, then the value is cut at its
   * end, each with a note saying so.
   */
  readonly maxOutputBytes?: number
  /** The language programs are written in (default `'typescript'`: the SDK is TypeScript). */
  readonly language?: 'typescript' | 'javascript'
}

/** The options, checked and complete. */
export interface CodeModeSettings {
  readonly maxParallelSubCalls: number
  readonly maxPendingSubCalls: number
  readonly limits: CodeRunLimits
  readonly maxOutputBytes: number
  readonly language: 'typescript' | 'javascript'
}

export const DEFAULT_MAX_OUTPUT_BYTES = 32 * 1024
/** Room for the notes a cut adds; the cap itself must leave space for some output. */
const MIN_OUTPUT_BYTES = 256

const OPTION_FIELDS = ['maxParallelSubCalls', 'maxPendingSubCalls', 'limits', 'maxOutputBytes', 'language']
/** Default room on the host for calls beyond the pool, as a multiple of `maxParallelSubCalls`. */
const PENDING_PER_SLOT = 4
const LIMIT_FIELDS = [
  'timeoutMs',
  'memoryBytes',
  'stackBytes',
  'outputBytes',
  'valueBytes',
  'maxBindingCalls',
] as const

function positiveInteger(where: string, label: string, value: unknown, min = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw invalidArgument(`${where}: ${label} must be an integer ≥ ${min}, got ${describeValue(value)}`)
  }
  return value
}

function plainObject(where: string, label: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(value)}`)
  return value as Record<string, unknown>
}

function unknownFields(
  where: string,
  label: string,
  value: Record<string, unknown>,
  known: readonly string[],
): void {
  const extra = Object.keys(value).filter((key) => !known.includes(key))
  if (extra.length > 0) {
    throw invalidArgument(
      `${where}: unknown field(s) ${extra.map((key) => `${label}.${key}`).join(', ')}; known: ${known.join(', ')}`,
    )
  }
}

/** Every option read once and checked; a mistake is named with the field and what was wrong. */
export function readCodeModeOptions(where: string, options: unknown): CodeModeSettings {
  const raw = plainObject(where, 'options', options)
  unknownFields(where, 'options', raw, OPTION_FIELDS)
  const { maxParallelSubCalls, maxPendingSubCalls, limits, maxOutputBytes, language } = raw
  const checkedLimits: Record<string, number> = {}
  if (limits !== undefined) {
    const rawLimits = plainObject(where, 'options.limits', limits)
    if ('maxConcurrentBindingCalls' in rawLimits) {
      throw invalidArgument(
        `${where}: options.limits.maxConcurrentBindingCalls is set by options.maxPendingSubCalls; give that instead`,
      )
    }
    unknownFields(where, 'options.limits', rawLimits, LIMIT_FIELDS)
    for (const field of LIMIT_FIELDS) {
      const value = rawLimits[field]
      if (value !== undefined) checkedLimits[field] = positiveInteger(where, `options.limits.${field}`, value)
    }
  }
  if (language !== undefined && language !== 'typescript' && language !== 'javascript') {
    throw invalidArgument(
      `${where}: options.language must be 'typescript' or 'javascript', got ${describeValue(language)}`,
    )
  }
  const pool =
    maxParallelSubCalls === undefined
      ? DEFAULT_MAX_PARALLEL_TOOL_CALLS
      : positiveInteger(where, 'options.maxParallelSubCalls', maxParallelSubCalls)
  const pending =
    maxPendingSubCalls === undefined
      ? pool * PENDING_PER_SLOT
      : positiveInteger(where, 'options.maxPendingSubCalls', maxPendingSubCalls, pool)
  return Object.freeze({
    maxParallelSubCalls: pool,
    maxPendingSubCalls: pending,
    limits: Object.freeze({ ...checkedLimits, maxConcurrentBindingCalls: pending }),
    maxOutputBytes:
      maxOutputBytes === undefined
        ? DEFAULT_MAX_OUTPUT_BYTES
        : positiveInteger(where, 'options.maxOutputBytes', maxOutputBytes, MIN_OUTPUT_BYTES),
    language: language ?? 'typescript',
  })
}
