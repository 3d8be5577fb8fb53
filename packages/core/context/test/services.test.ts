import { describe, expect, it } from 'vitest'
import { ContextError, createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import './fixtures.ts'

const quiet = () => createContext({ logger: createMemoryLogger() })

describe('services', () => {
  it('a provided service is a plain data property, inherited by child scopes', () => {
    const ctx = quiet()
    const greeter = { greet: (n: string) => `hi ${n}` }
    ctx.provide('greeter', greeter)
    const agent = ctx.createScope({ name: 'agent' })
    expect(agent.greeter).toBe(greeter)
    expect(Object.getOwnPropertyDescriptor(ctx, 'greeter')).toMatchObject({ value: greeter, writable: false })
    expect(agent.has('greeter')).toBe(true)
    expect(agent.get('greeter').greet('x')).toBe('hi x')
  })

  it('a scoped service gives every scope its own view, built once, including scopes created later', () => {
    const ctx = quiet()
    let built = 0
    ctx.provideScoped('counter', (scopeCtx) => {
      built++
      return { scopeName: scopeCtx.scope.name }
    })
    const early = ctx.createScope({ name: 'early' })
    expect(ctx.counter?.scopeName).toBe('root')
    expect(early.counter?.scopeName).toBe('early')
    const late = early.createScope({ name: 'late' })
    expect(late.counter?.scopeName).toBe('late')
    expect(late.counter).toBe(late.counter)
    expect(Object.getOwnPropertyDescriptor(late, 'counter')?.value).toBe(late.counter)
    expect(built).toBe(3)
  })

  it('a child may shadow a parent service; disposing it restores the parent one', () => {
    const ctx = quiet()
    const outer = { greet: () => 'outer' }
    const inner = { greet: () => 'inner' }
    ctx.provide('greeter', outer)
    const agent = ctx.createScope({ name: 'agent' })
    const dispose = agent.provide('greeter', inner)
    expect(agent.greeter).toBe(inner)
    expect(ctx.greeter).toBe(outer)
    dispose()
    expect(agent.greeter).toBe(outer)
  })

  it('providing twice in one scope is a SERVICE_CONFLICT; a reserved name is rejected', () => {
    const ctx = quiet()
    ctx.provide('greeter', { greet: () => '' })
    expect(() => ctx.provide('greeter', { greet: () => '' })).toThrow(/already provided in scope "root"/)
    let caught: unknown
    try {
      ctx.provide('emit' as never, {} as never)
    } catch (error) {
      caught = error
    }
    expect(ContextError.isInstance(caught) && caught.code).toBe('RESERVED_NAME')
  })

  it('get() on a missing service names it, the scope and what is available', () => {
    const ctx = quiet()
    ctx.provide('greeter', { greet: () => '' })
    const agent = ctx.createScope({ name: 'agent:a' })
    expect(() => agent.get('counter')).toThrow(
      /service "counter" is not available in scope "agent:a" \(#1\); available: greeter/,
    )
  })

  it('whenAvailable runs when the service arrives and its cleanup runs when it goes away', () => {
    const ctx = quiet()
    const agent = ctx.createScope({ name: 'agent' })
    const log: string[] = []
    agent.whenAvailable('greeter', (service) => {
      log.push(`up:${service.greet('a')}`)
      return () => log.push('down')
    })
    expect(log).toEqual([])
    const dispose = ctx.provide('greeter', { greet: (n) => n })
    expect(log).toEqual(['up:a'])
    dispose()
    expect(log).toEqual(['up:a', 'down'])
    ctx.provide('greeter', { greet: (n) => n + n })
    expect(log).toEqual(['up:a', 'down', 'up:aa'])
    agent.dispose()
    expect(log).toEqual(['up:a', 'down', 'up:aa', 'down'])
  })

  it('whenAvailable callback failures are contained and logged', () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    ctx.whenAvailable('greeter', () => {
      throw new Error('boom')
    })
    expect(() => ctx.provide('greeter', { greet: () => '' })).not.toThrow()
    expect(logger.entries.map((e) => e.message)).toEqual(['whenAvailable("greeter") callback failed'])
  })

  it('rejects bad arguments with messages naming them', () => {
    const ctx = quiet()
    expect(() => ctx.provide('9bad' as never, {} as never)).toThrow(
      /name must be an identifier string, got the string "9bad"/,
    )
    expect(() => ctx.provide('greeter', undefined as never)).toThrow(
      /service "greeter" must not be undefined/,
    )
    expect(() => ctx.provideScoped('counter', 3 as never)).toThrow(
      /factory must be a function, got the number 3/,
    )
    expect(() => ctx.createScope({ name: '' })).toThrow(/options.name must be a non-empty string/)
    expect(() => createContext({ logger: {} as never })).toThrow(/options.logger.debug must be a function/)
  })
})
