import { describe, expect, it } from 'vitest'
import { ContextError, createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import './fixtures.ts'

describe('emit', () => {
  it('notifies observers in priority then registration order; on() returns a disposer', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const seen: string[] = []
    ctx.on('test/said', (t) => seen.push(`a:${t}`))
    const off = ctx.on('test/said', (t) => seen.push(`b:${t}`))
    ctx.on('test/said', (t) => seen.push(`first:${t}`), { priority: 10 })
    ctx.emit('test/said', 'x')
    off()
    off()
    ctx.emit('test/said', 'y')
    expect(seen).toEqual(['first:x', 'a:x', 'b:x', 'first:y', 'a:y'])
  })

  it('contains throwing and rejecting listeners and reports them to the logger', async () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    const seen: string[] = []
    ctx.on('test/said', () => {
      throw 'not an error'
    })
    ctx.on('test/said', () => Promise.reject(new Error('later')))
    ctx.on('test/said', (t) => void seen.push(t))
    expect(() => ctx.emit('test/said', 'x')).not.toThrow()
    await new Promise((r) => setImmediate(r))
    expect(seen).toEqual(['x'])
    expect(logger.entries.map((e) => e.message)).toEqual([
      'listener for "test/said" failed',
      'listener for "test/said" failed',
    ])
  })

  it('a listener registered on an agent scope sees only events emitted from that agent', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const a = ctx.createScope({ name: 'a' })
    const b = ctx.createScope({ name: 'b' })
    const aChild = a.createScope({ name: 'a-child' })
    const seen: string[] = []
    a.on('test/said', (t) => seen.push(`a:${t}`))
    ctx.on('test/said', (t) => seen.push(`root:${t}`))
    b.emit('test/said', 'from-b')
    aChild.emit('test/said', 'from-a-child')
    ctx.emit('test/said', 'from-root')
    expect(seen).toEqual(['root:from-b', 'a:from-a-child', 'root:from-a-child', 'root:from-root'])
    expect(b.hasListeners('test/said')).toBe(true)
    expect(b.hasListeners('test/transform')).toBe(false)
  })

  it('rejects bad arguments', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    expect(() => ctx.on('test/said', 'nope' as never)).toThrow(
      /on\("test\/said", listener\): listener must be a function, got the string "nope"/,
    )
    expect(() => ctx.on('' as never, () => {})).toThrow(/name must be a non-empty string/)
    expect(() => ctx.on('test/said', () => {}, { priority: Number.NaN })).toThrow(
      /options.priority must be a finite number/,
    )
  })
})

describe('waterfall', () => {
  it('composes koa-style: outer listeners wrap inner ones around the fallback', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const trace: string[] = []
    ctx.on('test/transform', async (value, next) => {
      trace.push('outer-in')
      const inner = await next()
      trace.push('outer-out')
      return inner * 10
    })
    ctx.on('test/transform', async (value, next) => {
      trace.push('inner-in')
      return (await next(value + 1)) + 1
    })
    const result = await ctx.waterfall('test/transform', 1, (value) => {
      trace.push(`fallback:${value}`)
      return value
    })
    expect(result).toBe(30)
    expect(trace).toEqual(['outer-in', 'inner-in', 'fallback:2', 'outer-out'])
  })

  it('listenerCount counts the listeners a scope sees, and follows registration and disposal', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const agent = ctx.createScope({ name: 'agent' })
    const sibling = ctx.createScope({ name: 'sibling' })
    expect(agent.listenerCount('test/transform')).toBe(0)
    const off = ctx.on('test/transform', (v) => v)
    agent.on('test/transform', (v) => v)
    expect([ctx, agent, sibling].map((c) => c.listenerCount('test/transform'))).toEqual([1, 2, 1])
    off()
    expect([ctx, agent, sibling].map((c) => c.listenerCount('test/transform'))).toEqual([0, 1, 0])
    agent.dispose()
    expect(ctx.listenerCount('test/transform')).toBe(0)
  })

  it('calling next() twice rejects with NEXT_CALLED_TWICE', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on('test/transform', async (_value, next) => {
      await next()
      return next()
    })
    const error: unknown = await ctx.waterfall('test/transform', 1, (v) => v).catch((e: unknown) => e)
    expect(ContextError.isInstance(error) && error.code).toBe('NEXT_CALLED_TWICE')
  })

  it('next() with the wrong number of replacement arguments is rejected', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on('test/pair', (_a, _b, next) => (next as (...args: number[]) => Promise<string>)(1))
    await expect(ctx.waterfall('test/pair', 1, 2, (a, b) => `${a}${b}`)).rejects.toThrow(/pass none or all 2/)
  })

  it('a throwing listener rejects the waterfall (the caller decides what failure means)', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    ctx.on('test/transform', () => {
      throw new Error('policy exploded')
    })
    await expect(ctx.waterfall('test/transform', 1, (v) => v)).rejects.toThrow('policy exploded')
  })

  it('a scoped listener only wraps calls from its scope', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const a = ctx.createScope({ name: 'a' })
    const b = ctx.createScope({ name: 'b' })
    a.on('test/transform', async (_v, next) => (await next()) * 2)
    expect(await a.waterfall('test/transform', 3, (v) => v)).toBe(6)
    expect(await b.waterfall('test/transform', 3, (v) => v)).toBe(3)
  })

  it('without listeners the fallback runs directly; a missing fallback is rejected', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    expect(await ctx.waterfall('test/transform', 4, (v) => v + 1)).toBe(5)
    await expect(
      (ctx.waterfall as (...a: unknown[]) => Promise<unknown>)('test/transform', 4),
    ).rejects.toThrow(/fallback must be a function, got the number 4/)
  })
})
