import { runInNewContext } from 'node:vm'
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

  it('leaves every kind of view usable (typed arrays, DataViews, Buffers, views of another realm) and freezes an ArrayBuffer holder and a proxy of a plain object', () => {
    const views: Record<string, { [index: number]: number } | DataView> = {
      bytes: new Uint8Array(2),
      floats: new Float64Array(1),
      data: new DataView(new ArrayBuffer(2)),
      buffer: Buffer.from('ab'),
      foreign: runInNewContext('new Int32Array(2)') as Int32Array,
    }
    const plainTarget = { a: 1 }
    const value = { views, proxied: new Proxy(plainTarget, {}), holder: { buffer: new ArrayBuffer(1) } }
    deepFreeze(value)
    for (const view of Object.values(views)) {
      expect(Object.isFrozen(view)).toBe(false)
      if (view instanceof DataView) {
        view.setUint8(0, 9)
        expect(view.getUint8(0)).toBe(9)
      } else {
        view[0] = 5
        expect(view[0]).toBe(5)
      }
    }
    expect(Object.isFrozen(views)).toBe(true)
    expect(Object.isFrozen(plainTarget)).toBe(true)
    expect(Object.isFrozen(value.holder.buffer)).toBe(true)
  })
})
