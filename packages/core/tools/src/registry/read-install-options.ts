import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import type { InstallToolsOptions } from '../contract/types.ts'
import { DEFAULT_MAX_PARALLEL_TOOL_CALLS } from '../contract/check-batch-input.ts'
import { PRESENTATION_MODES, type RuntimeOptions } from './scope-state.ts'

// the longest delay Node timers accept; ample for the counts too
const MAX_SETTING = 2 ** 31 - 1

function positiveInteger(name: string, value: unknown, fallback: number | undefined): number | undefined {
  return integerIn(name, value, fallback, 1, MAX_SETTING)
}

function integerIn(
  name: string,
  value: unknown,
  fallback: number | undefined,
  min: 0 | 1,
  max: number,
): number | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(
      `installTools(ctx, options): options.${name} must be ${min === 1 ? 'a positive' : 'a non-negative'} integer ≤ ${max}, got ${describeValue(value)}`,
    )
  }
  return value
}

/**
 * Default `timeoutMs` of a tool that declares none (T47): long enough for builds, test runs and
 * slow network calls, short enough that a hung tool does not hold a turn forever.
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000

/** `defaultTimeoutMs`: a positive integer, or `0`, `Infinity` or `false` for no default timeout. */
function defaultTimeout(value: unknown): number | undefined {
  if (value === 0 || value === Infinity || value === false) return undefined
  return positiveInteger('defaultTimeoutMs', value, DEFAULT_TOOL_TIMEOUT_MS)
}

/** `installTools` options → the runtime's settings, each checked, with its documented default. */
export function readInstallOptions(options: InstallToolsOptions): RuntimeOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument(
      `installTools(ctx, options): options must be an object, got ${describeValue(options)}`,
    )
  }
  const defaultPresentation = options.defaultPresentation ?? 'native'
  if (!PRESENTATION_MODES.includes(defaultPresentation)) {
    throw invalidArgument(
      `installTools(ctx, options): options.defaultPresentation must be one of ${PRESENTATION_MODES.join(', ')}, got ${describeValue(defaultPresentation)}`,
    )
  }
  return {
    maxArgumentBytes: positiveInteger('maxArgumentBytes', options.maxArgumentBytes, 1024 * 1024)!,
    maxArgumentDepth: positiveInteger('maxArgumentDepth', options.maxArgumentDepth, 64)!,
    defaultPresentation,
    defaultTimeoutMs: defaultTimeout(options.defaultTimeoutMs),
    progressIntervalMs: integerIn('progressIntervalMs', options.progressIntervalMs, 100, 0, MAX_SETTING)!,
    policyTimeoutMs: positiveInteger('policyTimeoutMs', options.policyTimeoutMs, 60_000)!,
    abortGraceMs: integerIn('abortGraceMs', options.abortGraceMs, 2_000, 0, MAX_SETTING)!,
    lateBodyCapMs: positiveInteger('lateBodyCapMs', options.lateBodyCapMs, 60_000)!,
    maxResultBytes: integerIn(
      'maxResultBytes',
      options.maxResultBytes,
      4 * 1024 * 1024,
      1,
      Number.MAX_SAFE_INTEGER,
    )!,
    maxParallelToolCalls: positiveInteger(
      'maxParallelToolCalls',
      options.maxParallelToolCalls,
      DEFAULT_MAX_PARALLEL_TOOL_CALLS,
    )!,
  }
}
