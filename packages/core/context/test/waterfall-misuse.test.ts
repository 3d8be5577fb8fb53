import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ContextError, createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import './fixtures.ts'

const unhandled: unknown[] = []
const track = (reason: unknown): void => void unhandled.push(reason)
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

beforeEach(() => {
  unhandled.length = 0
  process.on('unhandledRejection', track)
})
afterEach(() => {
  process.off('unhandledRejection', track)
})

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ code: ContextError.isInstance(error) ? error.code : String(error) }),
  )
}

describe('T41: whatever a listener does with next(), no rejection escapes', () => {
  it('T41: next() twice in a row fails the waterfall even when the listener ignores the second rejection', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    let ran = 0
    ctx.on('test/transform', (_v, next) => {
      void next()
      void next()
      return 7
    })
    const result = await outcome(ctx.waterfall('test/transform', 1, (v) => (ran++, v)))
    expect(result).toEqual({ code: 'NEXT_CALLED_TWICE' })
    expect(ran).toBe(1)
    await settle()
    expect(unhandled).toEqual([])
  })

  it('T41: a second next() after awaiting the first fails the waterfall; the inner part ran once', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    let ran = 0
    ctx.on('test/transform', async (_v, next) => {
      const first = await next()
      void next()
      return first
    })
    expect(await outcome(ctx.waterfall('test/transform', 2, (v) => (ran++, v * 10)))).toEqual({
      code: 'NEXT_CALLED_TWICE',
    })
    expect(ran).toBe(1)
    await settle()
    expect(unhandled).toEqual([])
  })

  it('T41: a listener that catches the second rejection still fails the waterfall', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on('test/transform', async (_v, next) => {
      const first = await next()
      await next().catch(() => undefined)
      return first
    })
    expect(await outcome(ctx.waterfall('test/transform', 2, (v) => v))).toEqual({ code: 'NEXT_CALLED_TWICE' })
  })

  it('T41: next() with the wrong arguments, dropped, fails the waterfall without an unhandled rejection', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on('test/pair', (_a, _b, next) => {
      void (next as (...args: number[]) => Promise<string>)(1)
      return 'x'
    })
    expect(await outcome(ctx.waterfall('test/pair', 1, 2, (a, b) => `${a}${b}`))).toEqual({
      code: 'INVALID_ARGUMENT',
    })
    await settle()
    expect(unhandled).toEqual([])
  })

  it('T41: next() called late runs nothing, is logged, and rejects only into the listener', async () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    let ran = 0
    let late: Promise<unknown> | undefined
    ctx.on('test/transform', (_v, next) => {
      setImmediate(() => {
        late = next()
      })
      return 5
    })
    expect(await ctx.waterfall('test/transform', 1, (v) => (ran++, v))).toBe(5)
    await settle()
    expect(ran).toBe(0)
    expect(await outcome(late!)).toEqual({ code: 'NEXT_CALLED_LATE' })
    expect(logger.entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
      'a "test/transform" listener misused next()',
    ])
    expect(unhandled).toEqual([])
  })

  it('T41: a second next() after the waterfall settled is logged, not thrown anywhere', async () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    ctx.on('test/transform', async (_v, next) => {
      const first = await next()
      setImmediate(() => void next())
      return first
    })
    expect(await ctx.waterfall('test/transform', 3, (v) => v)).toBe(3)
    await settle()
    expect(logger.entries.map((e) => (e.fields?.error as ContextError | undefined)?.code)).toEqual([
      'NEXT_CALLED_TWICE',
    ])
    expect(unhandled).toEqual([])
  })

  it('T41: an inner listener that rejects while the outer one dropped next() causes no unhandled rejection', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on(
      'test/transform',
      (_v, next) => {
        void next()
        return 1
      },
      { priority: 1 },
    )
    ctx.on('test/transform', () => {
      throw new Error('inner failed')
    })
    expect(await ctx.waterfall('test/transform', 0, (v) => v)).toBe(1)
    await settle()
    expect(unhandled).toEqual([])
  })

  it('T41: a listener that never calls next answers the waterfall alone', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    let ran = 0
    ctx.on('test/transform', () => 9)
    expect(await ctx.waterfall('test/transform', 0, (v) => (ran++, v))).toBe(9)
    expect(ran).toBe(0)
  })
})
