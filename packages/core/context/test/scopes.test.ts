import { describe, expect, it } from 'vitest'
import { ContextError, createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import './fixtures.ts'

describe('scopes', () => {
  it('a scope knows its parent chain, depth and root', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    expect(sub.parent).toBe(agent)
    expect(sub.root).toBe(ctx)
    expect(ctx.root).toBe(ctx)
    expect(sub.scope.depth).toBe(2)
    expect(sub.scope.parent).toBe(agent.scope)
    expect(sub.isWithin(ctx)).toBe(true)
    expect(sub.isWithin(agent.scope)).toBe(true)
    expect(agent.isWithin(sub)).toBe(false)
  })

  it('dispose removes the scope registrations, children first, and is idempotent', () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    const order: string[] = []
    agent.onDispose(() => order.push('agent-1'))
    agent.onDispose(() => order.push('agent-2'))
    sub.onDispose(() => order.push('sub'))
    const seen: string[] = []
    agent.on('test/said', (text) => seen.push(text))
    agent.provide('greeter', { greet: () => 'x' })
    agent.dispose()
    agent.dispose()
    expect(order).toEqual(['sub', 'agent-2', 'agent-1'])
    expect(agent.scope.disposed).toBe(true)
    expect(sub.scope.disposed).toBe(true)
    expect(agent.greeter).toBeUndefined()
    ctx.emit('test/said', 'after')
    expect(seen).toEqual([])
  })

  it('registering on a disposed scope fails with SCOPE_DISPOSED', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const agent = ctx.createScope({ name: 'agent' })
    agent.dispose()
    let caught: unknown
    try {
      agent.on('test/said', () => {})
    } catch (error) {
      caught = error
    }
    expect(ContextError.isInstance(caught) && caught.code).toBe('SCOPE_DISPOSED')
    expect(() => agent.createScope({ name: 'x' })).toThrow(/scope "agent" \(#1\) has been disposed/)
  })

  it('a failing onDispose callback is logged and the rest still run', () => {
    const logger = createMemoryLogger()
    const ctx = createContext({ logger })
    const agent = ctx.createScope({ name: 'agent' })
    let ran = false
    agent.onDispose(() => {
      ran = true
    })
    agent.onDispose(() => {
      throw new Error('boom')
    })
    agent.dispose()
    expect(ran).toBe(true)
    expect(logger.entries).toHaveLength(1)
    expect(logger.entries[0]!.level).toBe('error')
  })
})
