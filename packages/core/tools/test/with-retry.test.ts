import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import {
  backoffDelay,
  defineTool,
  readRetryable,
  retryable,
  withRetry,
  type RetryOptions,
  type RetrySleep,
  type ToolAttempt,
  type ToolExecContext,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup } from './fixtures.ts'

/** A sleep that records what it was asked to wait and returns at once (no real waiting). */
function recordingSleep(): { readonly sleep: RetrySleep; readonly waits: number[] } {
  const waits: number[] = []
  return {
    waits,
    sleep: async (ms, signal) => {
      waits.push(ms)
      if (signal?.aborted) throw signal.reason
    },
  }
}

/** A tool whose body runs `script[attempt - 1]` (a value, or an error to throw). */
function flaky(
  script: readonly unknown[],
  options: RetryOptions & { readonly timeoutMs?: number; readonly idempotent?: boolean } = {},
  during?: (exec: ToolExecContext, attempt: number) => void,
) {
  const { timeoutMs, idempotent = true, ...retry } = options
  let attempts = 0
  const definition = defineTool({
    name: 'get_rate',
    description: 'Read an exchange rate',
    parameters: z.object({}),
    idempotent,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: (_args, exec) => {
      attempts++
      during?.(exec, attempts)
      const step = script[Math.min(attempts, script.length) - 1]
      if (step instanceof Error) throw step
      return step
    },
  })
  return { tool: withRetry(definition, retry), attempts: () => attempts }
}

function run(definition: ReturnType<typeof flaky>['tool']) {
  const { ctx } = setup()
  ctx.tools.register(definition)
  const attempts: ToolAttempt[] = []
  ctx.on('tools/attempt', (attempt) => void attempts.push(attempt))
  return { ctx, attempts, execute: () => ctx.tools.execute(call('get_rate')) }
}

describe('withRetry: body-level retry for idempotent tools', () => {
  it('refuses a tool that does not declare idempotent: true, naming it', () => {
    expect(() => flaky(['ok'], { idempotent: false })).toThrow(
      /tool "get_rate" does not declare idempotent: true/,
    )
    expect(() => withRetry(flaky(['ok']).tool, { maxAttempts: 0 })).toThrow(
      /options\.maxAttempts must be a positive integer, got the number 0/,
    )
  })

  it('retries errors marked retryable with exponential backoff and jitter, and reports every attempt', async () => {
    const { sleep, waits } = recordingSleep()
    const { tool, attempts } = flaky([retryable(new Error('503')), retryable(new Error('503')), 42], {
      maxAttempts: 4,
      baseDelayMs: 100,
      sleep,
      random: () => 0.5,
    })
    const env = run(tool)
    const result = await env.execute()
    expect(codeOf(result)).toBe('OK')
    expect(result.isError ? undefined : result.value).toBe(42)
    expect(attempts()).toBe(3)
    // window 100, then 200; equal jitter at 0.5 → three quarters of the window
    expect(waits).toEqual([75, 150])
    expect(env.attempts.map((a) => [a.attempt, a.outcome, a.retryable, a.retryInMs])).toEqual([
      [1, 'error', true, 75],
      [2, 'error', true, 150],
      [3, 'ok', undefined, undefined],
    ])
    expect(env.attempts[0]?.error).toBe('RetryableError: 503')
  })

  it('T13: an error that is not marked retryable is final after one attempt (TOOL_FAILED)', async () => {
    const { sleep, waits } = recordingSleep()
    const { tool, attempts } = flaky([new Error('400 bad request'), 'never'], { sleep })
    const result = await run(tool).execute()
    expect(codeOf(result)).toBe('TOOL_FAILED')
    expect(attempts()).toBe(1)
    expect(waits).toEqual([])
  })

  it('stops at maxAttempts and fails with the last error', async () => {
    const { sleep } = recordingSleep()
    const { tool, attempts } = flaky([retryable(new Error('down'))], { maxAttempts: 3, sleep })
    const env = run(tool)
    const result = await env.execute()
    expect(codeOf(result)).toBe('TOOL_FAILED')
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('down') }])
    expect(attempts()).toBe(3)
    expect(env.attempts.at(-1)).toMatchObject({ attempt: 3, outcome: 'error', retryable: true })
    expect(env.attempts.at(-1)?.retryInMs).toBeUndefined()
  })

  it('waits what the error asks (retryAfterMs), and gives up when it asks for longer than maxDelayMs', async () => {
    const { sleep, waits } = recordingSleep()
    const { tool } = flaky([retryable(new Error('429'), { retryAfterMs: 1_234 }), 'ok'], { sleep })
    expect(codeOf(await run(tool).execute())).toBe('OK')
    expect(waits).toEqual([1_234])
    const long = flaky([retryable(new Error('429'), { retryAfterMs: 60_000 }), 'ok'], { sleep })
    expect(codeOf(await run(long.tool).execute())).toBe('TOOL_FAILED')
    expect(long.attempts()).toBe(1)
  })

  it('honours the timeout: no attempt starts that could not begin before the tool’s timeoutMs', async () => {
    const { sleep, waits } = recordingSleep()
    const { tool, attempts } = flaky([retryable(new Error('slow'), { retryAfterMs: 2_000 }), 'ok'], {
      timeoutMs: 1_000,
      sleep,
    })
    expect(codeOf(await run(tool).execute())).toBe('TOOL_FAILED')
    expect([attempts(), waits]).toEqual([1, []])
  })

  it('T38: an abort during the wait ends the call (ABORTED) without another attempt', async () => {
    const controller = new AbortController()
    const sleep: RetrySleep = (_ms, signal) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
        controller.abort()
      })
    const { tool, attempts } = flaky([retryable(new Error('flaky')), 'ok'], { sleep })
    const { ctx } = setup({ abortGraceMs: 0 })
    ctx.tools.register(tool)
    const result = await ctx.tools.execute(call('get_rate', {}, { signal: controller.signal }))
    expect(codeOf(result)).toBe('ABORTED')
    expect(attempts()).toBe(1)
  })

  it('T37: contexts a failed attempt deferred are dropped; the attempt that returned speaks for the call', async () => {
    const { sleep } = recordingSleep()
    const { tool } = flaky([retryable(new Error('flaky')), 'ok'], { sleep }, (exec, attempt) => {
      exec.deferContext(`attempt ${attempt}`)
      if (attempt === 1) exec.concludeTurn()
    })
    const result = await run(tool).execute()
    expect(result.additionalContexts).toEqual(['attempt 2'])
    expect(result.isError ? undefined : result.concludesTurn).toBeUndefined()
  })

  it('readRetryable follows the retryable convention of other clients and never throws', () => {
    expect(readRetryable({ retryable: true, retryAfterMs: 500 })).toEqual({
      retryable: true,
      retryAfterMs: 500,
    })
    expect(readRetryable(new Error('plain'))).toEqual({ retryable: false, retryAfterMs: undefined })
    const hostile = Object.defineProperty({}, 'retryable', {
      get() {
        throw new Error('getter')
      },
    })
    expect(readRetryable(hostile)).toEqual({ retryable: false, retryAfterMs: undefined })
  })

  it('backoffDelay stays in the upper half of a window that doubles up to maxDelayMs (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseDelayMs, maxDelayMs, draw) => {
          const window = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1))
          const delay = backoffDelay({ attempt, baseDelayMs, maxDelayMs, random: () => draw })
          return delay >= Math.floor(window / 2) && delay <= Math.ceil(window)
        },
      ),
    )
  })
})
