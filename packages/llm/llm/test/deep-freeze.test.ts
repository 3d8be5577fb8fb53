import { describe, expect, it } from 'vitest'
import { deepFreeze } from '@deepseek-ai/dsh-llm'

describe('deepFreeze', () => {
  it('freezes every reachable object and returns its argument', () => {
    const value = { a: [{ b: 1 }], c: { d: { e: [] as unknown[] } } }
    expect(deepFreeze(value)).toBe(value)
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.a)).toBe(true)
    expect(Object.isFrozen(value.a[0])).toBe(true)
    expect(Object.isFrozen(value.c.d.e)).toBe(true)
    expect(() => value.c.d.e.push(1)).toThrow(TypeError)
  })

  it('handles cycles, shared references and symbol keys', () => {
    const shared = { s: 1 }
    const value: Record<string | symbol, unknown> = { x: shared, y: shared, [Symbol.for('k')]: { z: 1 } }
    value.self = value
    deepFreeze(value)
    expect(Object.isFrozen(shared)).toBe(true)
    expect(Object.isFrozen(value[Symbol.for('k')])).toBe(true)
  })

  it('is iterative: 200,000 levels do not overflow the stack', () => {
    const root: { next?: unknown } = {}
    let node = root
    for (let i = 0; i < 200_000; i += 1) {
      const next = {}
      node.next = next
      node = next
    }
    deepFreeze(root)
    expect(Object.isFrozen(node)).toBe(true)
  })

  it('passes primitives through, never calls getters and leaves typed arrays usable', () => {
    expect(deepFreeze(3)).toBe(3)
    expect(deepFreeze(null)).toBe(null)
    let calls = 0
    const value = {
      get g() {
        calls += 1
        return {}
      },
      bytes: new Uint8Array(2),
    }
    deepFreeze(value)
    expect(calls).toBe(0)
    expect(Object.isFrozen(value)).toBe(true)
    value.bytes[0] = 7
    expect(value.bytes[0]).toBe(7)
  })
})
