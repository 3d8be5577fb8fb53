import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import { describeThrown } from '../contract/results.ts'
import type { AnyToolDefinition, ToolAttempt, ToolExecContext } from '../contract/types.ts'
import { backoffDelay } from './backoff-delay.ts'
import { readRetryable } from './retryable.ts'
import { abortableSleep, type RetrySleep } from './sleep.ts'

export interface RetryOptions {
  /** Runs of the body per call, the first included (a positive integer; default 3). */
  readonly maxAttempts?: number
  /** Backoff window of the first retry, in ms (default 200); it doubles per retry. */
  readonly baseDelayMs?: number
  /**
   * Longest wait between attempts (default 5 000 ms). A `retryAfterMs` the error carries above it
   * makes the error final: waiting that long belongs to the caller, not to one tool call.
   */
  readonly maxDelayMs?: number
  /** Which errors are worth another attempt (default: those marked `retryable`, see `retryable()`). */
  readonly isRetryable?: (error: unknown) => boolean
  /** How to wait (default: an abortable timer). Tests pass one that does not wait. */
  readonly sleep?: RetrySleep
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: () => number
}

const DEFAULTS = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 } as const

function positiveInteger(where: string, label: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalidArgument(`${where}: ${label} must be a positive integer, got ${describeValue(value)}`)
  return value
}

function optionalFunction<T>(where: string, label: string, value: unknown): T | undefined {
  if (value !== undefined && typeof value !== 'function')
    throw invalidArgument(`${where}: ${label} must be a function, got ${describeValue(value)}`)
  return value as T | undefined
}

/**
 * The definition with a body that runs again after a failure marked retryable, for tools that
 * declare `idempotent: true` (refused otherwise: a body with side effects run twice applies them
 * twice). Between attempts it waits with exponential backoff and jitter (or the error's
 * `retryAfterMs`); it stops at `maxAttempts`, at an error that is not retryable, when the call's
 * signal aborts (also during the wait), and when the next attempt could not start before the
 * tool's own `timeoutMs` runs out. The last error is thrown, so the call fails as it would have
 * without retries. Each attempt is reported on `tools/attempt` (metrics, spans) in the call's
 * scope. What a failed attempt deferred (`exec.deferContext`, `exec.concludeTurn`) is dropped: only
 * the attempt that returned speaks for the call. Register the object this returns.
 *
 * It is not a `tools/execute` wrapper on purpose: `next()` is single-use so that every inner
 * wrapper (metrics, the timeout) sees one dispatch, and only the tool knows whether its effect is
 * idempotent and which of its errors are transient.
 * @example ctx.tools.register(withRetry(defineTool({ name: 'get_rate', idempotent: true, … }), { maxAttempts: 4 }))
 */
export function withRetry<D extends AnyToolDefinition>(definition: D, options: RetryOptions = {}): D {
  const where = 'withRetry(definition, options)'
  if (typeof definition !== 'object' || definition === null || typeof definition.execute !== 'function')
    throw invalidArgument(`${where}: definition must be a tool definition, got ${describeValue(definition)}`)
  const name = typeof definition.name === 'string' ? definition.name : '(unnamed)'
  if (definition.idempotent !== true)
    throw invalidArgument(
      `${where}: tool "${name}" does not declare idempotent: true; retrying a body whose effect is not idempotent could apply it twice`,
    )
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${where}: options must be an object, got ${describeValue(options)}`)
  const maxAttempts = positiveInteger(where, 'options.maxAttempts', options.maxAttempts, DEFAULTS.maxAttempts)
  const baseDelayMs = positiveInteger(where, 'options.baseDelayMs', options.baseDelayMs, DEFAULTS.baseDelayMs)
  const maxDelayMs = positiveInteger(where, 'options.maxDelayMs', options.maxDelayMs, DEFAULTS.maxDelayMs)
  const isRetryable =
    optionalFunction<(error: unknown) => boolean>(where, 'options.isRetryable', options.isRetryable) ??
    ((error: unknown) => readRetryable(error).retryable)
  const sleep = optionalFunction<RetrySleep>(where, 'options.sleep', options.sleep) ?? abortableSleep
  const random = optionalFunction<() => number>(where, 'options.random', options.random)
  const body = definition.execute.bind(definition) as AnyToolDefinition['execute']
  const timeoutMs = typeof definition.timeoutMs === 'number' ? definition.timeoutMs : undefined

  const execute = async (args: unknown, exec: ToolExecContext): Promise<unknown> => {
    const signal = exec.signal
    const startedAt = performance.now()
    const report = (attempt: ToolAttempt): void => {
      if (exec.ctx.hasListeners('tools/attempt')) exec.ctx.emit('tools/attempt', attempt)
    }
    for (let attempt = 1; ; attempt++) {
      const contexts: string[] = []
      let concludes = false
      const attemptExec: ToolExecContext = {
        callId: exec.callId,
        toolName: exec.toolName,
        signal,
        ctx: exec.ctx,
        turn: exec.turn,
        step: exec.step,
        // progress is the call's, whichever attempt reports it
        reportProgress: (progress) => exec.reportProgress(progress),
        idempotencyKey: exec.idempotencyKey,
        deferContext: (text) => {
          if (typeof text !== 'string')
            throw new TypeError(`exec.deferContext(text): text must be a string, got ${typeof text}`)
          contexts.push(text)
        },
        concludeTurn: () => {
          concludes = true
        },
      }
      const at = performance.now()
      try {
        const value = await body(args, attemptExec)
        for (const text of contexts) exec.deferContext(text)
        if (concludes) exec.concludeTurn()
        report({
          callId: exec.callId,
          toolName: exec.toolName,
          attempt,
          outcome: 'ok',
          durationMs: performance.now() - at,
        })
        return value
      } catch (error) {
        const durationMs = performance.now() - at
        let marked = false
        try {
          marked = isRetryable(error) === true
        } catch {
          marked = false
        }
        const wait = marked ? nextWait(error, attempt) : undefined
        const elapsed = performance.now() - startedAt
        const retry =
          wait !== undefined &&
          attempt < maxAttempts &&
          !signal.aborted &&
          (timeoutMs === undefined || elapsed + wait < timeoutMs)
        report({
          callId: exec.callId,
          toolName: exec.toolName,
          attempt,
          outcome: 'error',
          durationMs,
          error: describeThrown(error),
          retryable: marked,
          ...(retry ? { retryInMs: wait } : {}),
        })
        if (!retry) throw error
        try {
          await sleep(wait, signal)
        } catch {
          throw error
        }
        if (signal.aborted) throw error
      }
    }
  }

  /** The wait before the next attempt, or undefined when the error asks for longer than allowed. */
  const nextWait = (error: unknown, attempt: number): number | undefined => {
    const { retryAfterMs } = readRetryable(error)
    if (retryAfterMs !== undefined) return retryAfterMs <= maxDelayMs ? retryAfterMs : undefined
    return backoffDelay({ attempt, baseDelayMs, maxDelayMs, ...(random === undefined ? {} : { random }) })
  }

  return { ...definition, execute } as D
}
