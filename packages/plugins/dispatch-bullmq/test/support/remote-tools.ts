import { Redis } from 'ioredis'
import { z } from 'zod'
import { defineTool, type AnyToolDefinition, type ToolExecContext } from '@deepseek-ai/dsh-tools'

/**
 * What the test tools record, in Redis lists under `<base>:`, so a test can wait for a body on
 * another process (BLPOP, no sleeping) and count what ran where.
 */
export interface Recorder {
  readonly base: string
  readonly redis: Redis
  started(callId: string): Promise<void>
  aborted(callId: string): Promise<void>
}

export function recorder(url: string, base: string, worker: string): Recorder {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  redis.on('error', () => {}) // a test that stops Redis sees it in the result, not on stderr
  return {
    base,
    redis,
    async started(callId) {
      await redis.rpush(`${base}:started`, `${callId}@${worker}`)
      await redis.rpush(`${base}:started:${callId}`, worker)
    },
    async aborted(callId) {
      await redis.rpush(`${base}:aborted`, `${callId}@${worker}`)
    },
  }
}

const untilAborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_resolve, reject) => {
    if (signal.aborted) reject(new Error('aborted'))
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
  })

/**
 * D9: reports steps 1…`steps` of `steps` (with `eachAfterGo`, each once the test pushed to
 * `<base>:go:<id>`), then waits for `<base>:release:<id>`; ends early when its signal aborts.
 */
async function stepsBody(
  rec: Recorder,
  id: string,
  steps: number,
  exec: ToolExecContext,
  eachAfterGo = false,
): Promise<string> {
  const blocking = rec.redis.duplicate()
  blocking.on('error', () => {})
  try {
    for (let step = 1; step <= steps; step++) {
      if (eachAfterGo)
        await Promise.race([blocking.blpop(`${rec.base}:go:${id}`, 0), untilAborted(exec.signal)])
      exec.reportProgress({ progress: step, total: steps, message: `step ${step}` })
    }
    await Promise.race([blocking.blpop(`${rec.base}:release:${id}`, 0), untilAborted(exec.signal)])
    return `${steps} steps`
  } finally {
    blocking.disconnect()
  }
}

/**
 * The tools of the tests, the same definitions in the calling process (schemas, policy, checks)
 * and on the workers (bodies). Bodies that wait end only when their signal aborts or `release`
 * (a Redis list) gives them the word.
 */
export function remoteTools(rec: Recorder): AnyToolDefinition[] {
  const { redis, base } = rec
  return [
    defineTool({
      name: 'echo',
      description: 'Return the value',
      parameters: z.object({ value: z.unknown() }),
      isConcurrencySafe: () => true,
      strict: false,
      execute: async ({ value }, exec) => {
        await rec.started(exec.callId)
        await redis.rpush(`${base}:keys`, exec.idempotencyKey)
        return value
      },
    }),
    defineTool({
      name: 'square',
      description: 'Square a number',
      parameters: z.object({ n: z.number() }),
      output: z.object({ squared: z.number() }),
      toContent: (value: { squared: number }) => `squared: ${value.squared}`,
      isConcurrencySafe: () => true,
      execute: async ({ n }, exec) => {
        await rec.started(exec.callId)
        // a worker that lies about its output schema is caught by the caller's check
        return n < 0 ? ({ squared: 'negative' } as unknown as { squared: number }) : { squared: n * n }
      },
    }),
    defineTool({
      name: 'increment',
      description: 'Not idempotent: adds one to a counter per call id',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async (_args, exec) => {
        await rec.started(exec.callId)
        return redis.incr(`${base}:count:${exec.callId}`)
      },
    }),
    defineTool({
      name: 'wait',
      description: 'Wait until released (a Redis list) or aborted',
      parameters: z.object({ id: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ id }, exec) => {
        await rec.started(exec.callId)
        const blocking = redis.duplicate()
        blocking.on('error', () => {})
        try {
          const released = blocking.blpop(`${base}:release:${id}`, 0)
          return await Promise.race([released.then(() => `released ${id}`), untilAborted(exec.signal)])
        } catch (error) {
          await rec.aborted(exec.callId)
          throw error
        } finally {
          blocking.disconnect()
        }
      },
    }),
    defineTool({
      name: 'steps',
      description: 'Report progress step by step, then wait until released (a Redis list)',
      parameters: z.object({ id: z.string(), steps: z.number() }),
      execute: async ({ id, steps }, exec) => stepsBody(rec, id, steps, exec),
    }),
    defineTool({
      name: 'long_steps',
      description: 'As steps, each step after the test says go; its progress restarts its timeout',
      parameters: z.object({ id: z.string(), steps: z.number() }),
      timeoutMs: 2_000,
      progressResetsTimeout: { maxMs: 60_000 },
      execute: async ({ id, steps }, exec) => stepsBody(rec, id, steps, exec, true),
    }),
    defineTool({
      name: 'fail',
      description: 'Throw',
      parameters: z.object({}),
      execute: () => {
        throw new TypeError('boom')
      },
    }),
    defineTool({
      name: 'bigint',
      description: 'Return a value JSON cannot carry',
      parameters: z.object({}),
      execute: () => ({ n: 1n }),
    }),
    defineTool({
      name: 'notes_then_fail',
      description: 'Defer context, then throw',
      parameters: z.object({}),
      execute: (_args, exec) => {
        exec.deferContext('before the throw')
        throw new TypeError('boom')
      },
    }),
    defineTool({
      name: 'notes_then_bigint',
      description: 'Defer context, then return a value JSON cannot carry',
      parameters: z.object({}),
      execute: (_args, exec) => {
        exec.deferContext('before the value')
        return { n: 1n }
      },
    }),
    defineTool({
      name: 'notes',
      description: 'Defer context and conclude the turn',
      parameters: z.object({}),
      execute: (_args, exec) => {
        exec.deferContext('first note')
        exec.deferContext('second note')
        exec.concludeTurn()
        return 'noted'
      },
    }),
  ]
}
