import { describeValue } from '@deepseek-ai/dsh-llm'
import { abortableSleep, backoffDelay, readRetryable, type RetrySleep } from '@deepseek-ai/dsh-tools'
import { invalidArgument } from '../base/errors.ts'
import type { ModelRetry, StepRun } from './step-types.ts'

/**
 * Model-level retry (`createAgent({ modelRetry })`): a model call that fails with an error marked
 * `retryable: true` (what `ChatCompletionsError` sets for 429, 5xx, timeouts and dropped streams),
 * before anything of the step was recorded or started, is made again after a wait.
 */
export interface ModelRetryOptions {
  /** Model calls per step, the first included (a positive integer; default 3; 1 turns retry off). */
  readonly maxAttempts?: number
  /** Backoff window of the first retry, in ms (default 500); it doubles per retry. */
  readonly baseDelayMs?: number
  /**
   * Longest wait (default 30 000 ms): the backoff is capped there, and an error whose
   * `retryAfterMs` asks for longer is not retried (the turn fails with it; waiting that long is the
   * harness's decision).
   */
  readonly maxDelayMs?: number
  /** How to wait (default: an abortable timer); it must reject when the signal aborts. */
  readonly sleep?: RetrySleep
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: () => number
}

const DEFAULTS = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 } as const

/** Checks `createAgent`'s `modelRetry` (`false`: no retry) and fills in the defaults. */
export function resolveModelRetry(options: ModelRetryOptions | false | undefined, where: string): ModelRetry {
  if (options === false)
    return {
      maxAttempts: 1,
      baseDelayMs: DEFAULTS.baseDelayMs,
      maxDelayMs: DEFAULTS.maxDelayMs,
      sleep: abortableSleep,
      random: undefined,
    }
  const o = options ?? {}
  if (typeof o !== 'object' || o === null)
    throw invalidArgument(`${where}: options.modelRetry must be an object or false, got ${describeValue(o)}`)
  const count = (key: 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'): number => {
    const value: unknown = o[key]
    if (value === undefined) return DEFAULTS[key]
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw invalidArgument(
        `${where}: options.modelRetry.${key} must be a positive integer, got ${describeValue(value)}`,
      )
    return value
  }
  for (const key of ['sleep', 'random'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function')
      throw invalidArgument(
        `${where}: options.modelRetry.${key} must be a function, got ${describeValue(o[key])}`,
      )
  }
  return {
    maxAttempts: count('maxAttempts'),
    baseDelayMs: count('baseDelayMs'),
    maxDelayMs: count('maxDelayMs'),
    sleep: o.sleep ?? abortableSleep,
    random: o.random,
  }
}

/** The wait before attempt `attempt + 1` after `error`, or undefined when it is not to be retried. */
export function modelRetryDelay(retry: ModelRetry, error: unknown, attempt: number): number | undefined {
  if (attempt >= retry.maxAttempts) return undefined
  const { retryable, retryAfterMs } = readRetryable(error)
  if (!retryable) return undefined
  if (retryAfterMs !== undefined) return retryAfterMs <= retry.maxDelayMs ? retryAfterMs : undefined
  return backoffDelay({
    attempt,
    baseDelayMs: retry.baseDelayMs,
    maxDelayMs: retry.maxDelayMs,
    ...(retry.random === undefined ? {} : { random: retry.random }),
  })
}

/**
 * After attempt `attempt` of the step's model call failed with `error` (and nothing of the step was
 * recorded or started): `retry` once the wait is over (with `model-call-retry` and the next
 * `model-call-start` emitted), `aborted` when the turn's signal aborted during the wait, `give-up`
 * when the error is not to be retried.
 */
export async function awaitModelRetry(
  run: StepRun,
  attempt: number,
  error: unknown,
): Promise<'retry' | 'aborted' | 'give-up'> {
  const { runner, turn, step, signal, emit, request } = run
  const retry = runner.modelRetry
  const delayMs = modelRetryDelay(retry, error, attempt)
  if (delayMs === undefined || signal?.aborted) return 'give-up'
  emit({ type: 'model-call-retry', turn, step, at: performance.now(), attempt, delayMs, error })
  try {
    await retry.sleep(delayMs, signal)
  } catch {
    if (signal?.aborted) return 'aborted'
    // a sleep that failed for another reason: the model's error is what the turn ends with
    return 'give-up'
  }
  if (signal?.aborted) return 'aborted'
  emit({
    type: 'model-call-start',
    turn,
    step,
    at: performance.now(),
    attempt: attempt + 1,
    messages: request.messages.length,
    tools: request.tools.length,
  })
  return 'retry'
}
