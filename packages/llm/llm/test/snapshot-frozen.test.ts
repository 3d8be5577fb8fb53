import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { deepFreeze, snapshotJsonValue, type SnapshotResult } from '@deepseek-ai/dsh-llm'

function okValue(result: SnapshotResult): unknown {
  if (!result.ok) throw new Error(`expected ok, got ${result.path} ${result.reason}`)
  return result.value
}

function isDeepFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true
  seen.add(value)
  return Object.isFrozen(value) && Object.values(value).every((child) => isDeepFrozen(child, seen))
}

const frozen = (value: unknown): unknown => okValue(snapshotJsonValue(value, { freeze: true }))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('snapshotJsonValue(value, { freeze: true })', () => {
  it('T14: gives the same copy as without freeze, deep-frozen', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = frozen(value)
        expect(isDeepStrictEqual(copy, okValue(snapshotJsonValue(value)))).toBe(true)
        expect(isDeepFrozen(copy)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })

  it('T14: embeds a frozen snapshot by reference; a plain snapshot copies it into mutable objects', () => {
    const inner = frozen({ list: [1, 2], deep: { x: 'y' } }) as { list: number[] }
    const outer = frozen({ a: inner, b: [inner] }) as { a: unknown; b: unknown[] }
    expect(outer.a).toBe(inner)
    expect(outer.b[0]).toBe(inner)
    const plain = okValue(snapshotJsonValue({ a: inner })) as { a: { list: number[] } }
    expect(plain.a).not.toBe(inner)
    expect(plain.a).toEqual(inner)
    plain.a.list.push(3)
    expect(inner.list).toEqual([1, 2])
  })

  it('T14: deepFreeze returns a frozen snapshot without walking it', () => {
    const copy = frozen({ big: Array.from({ length: 1000 }, (_, i) => ({ i })) })
    // deepFreeze lists each object's keys once (names, then symbols): count the objects it visits
    const listed = vi.spyOn(Object, 'getOwnPropertyNames')
    expect(deepFreeze(copy)).toBe(copy)
    expect(listed).not.toHaveBeenCalled()
    // A value that merely holds one is walked, but not into it.
    const holder = { copy, other: { x: 1 } }
    deepFreeze(holder)
    expect(listed).toHaveBeenCalledTimes(2)
    expect(Object.isFrozen(holder.other)).toBe(true)
  })

  it('T14: maxDepth still holds around embedded snapshots, reported where it is crossed', () => {
    const deep = frozen([[[0]]]) // height 3
    expect(snapshotJsonValue({ a: deep }, { freeze: true, maxDepth: 4 }).ok).toBe(true)
    expect(snapshotJsonValue({ a: deep }, { freeze: true, maxDepth: 3 })).toEqual({
      ok: false,
      path: '$.a[0][0]',
      reason: 'is nested deeper than maxDepth (3)',
    })
    expect(snapshotJsonValue(deep, { freeze: true, maxDepth: 2 })).toEqual(
      snapshotJsonValue([[[0]]], { maxDepth: 2 }),
    )
  })

  it('T14: sharing inside embedded snapshots counts toward the JSON-bomb limit exactly as without them', () => {
    let plain: unknown = 'leaf'
    let plainLevels = 0
    for (; plainLevels < 40; plainLevels += 1) {
      const next = [plain, plain]
      if (!snapshotJsonValue(next).ok) break
      plain = next
    }
    let built: unknown = frozen('leaf')
    let frozenLevels = 0
    for (; frozenLevels < 40; frozenLevels += 1) {
      const next = snapshotJsonValue([built, built], { freeze: true })
      if (!next.ok) {
        expect(next.reason).toMatch(/JSON text would hold over 1000000 extra values/)
        break
      }
      built = next.value
    }
    expect(frozenLevels).toBe(plainLevels)
    expect(plainLevels).toBeGreaterThan(15)
    expect(plainLevels).toBeLessThan(25)
  })

  it('validates options.freeze', () => {
    expect(() => snapshotJsonValue(1, { freeze: 'yes' as never })).toThrowError(
      /options\.freeze must be a boolean, got the string "yes"/,
    )
  })
})

describe('long arrays (read in bulk)', () => {
  const long = (length = 200): unknown[] => Array.from({ length }, (_, i) => i)

  it('T14: a million elements copy exactly, -0 included', () => {
    const value = long(1_000_000)
    value[5] = -0
    value[6] = 'text'
    value[7] = null
    value[8] = { nested: [true] }
    const copy = okValue(snapshotJsonValue(value)) as unknown[]
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    expect(Object.is(copy[5], 0)).toBe(true)
    expect(copy[8]).not.toBe(value[8])
  })

  it('T13: every way a long array is not JSON is reported at its path', () => {
    const cases: [string, (array: unknown[]) => void, string, RegExp][] = [
      ['named', (a) => Object.assign(a, { extra: 1 }), '$.extra', /non-index array property/],
      ['hidden named', (a) => Object.defineProperty(a, 'hidden', { value: 1 }), '$.hidden', /non-index/],
      ['symbol', (a) => Object.assign(a, { [Symbol.for('s')]: 1 }), '$', /symbol-keyed/],
      ['hole', (a) => Reflect.deleteProperty(a, 150), '$[150]', /hole/],
      [
        'non-enumerable',
        (a) => Object.defineProperty(a, 170, { value: 1, enumerable: false }),
        '$[170]',
        /non-enumerable/,
      ],
      ['bigint', (a) => (a[3] = 1n), '$[3]', /BigInt/],
      ['undefined', (a) => (a[199] = undefined), '$[199]', /undefined inside an array/],
      ['NaN', (a) => (a[0] = Number.NaN), '$[0]', /NaN/],
      [
        'throwing getter',
        (a) =>
          Object.defineProperty(a, 42, {
            enumerable: true,
            get: () => {
              throw new Error('boom')
            },
          }),
        '$[42]',
        /has a getter that threw \(Error: boom\)/,
      ],
    ]
    for (const [label, spoil, path, reason] of cases) {
      const value = long()
      spoil(value)
      const result = snapshotJsonValue({ list: value })
      expect(result.ok, label).toBe(false)
      if (result.ok) continue
      expect(result.path, label).toBe(path.replace('$', '$.list'))
      expect(result.reason, label).toMatch(reason)
    }
  })

  it('T13: with several element getters, a throw is reported at the array, each getter having run once', () => {
    const value = long()
    let reads = 0
    Object.defineProperty(value, 10, { enumerable: true, get: () => ++reads })
    Object.defineProperty(value, 20, {
      enumerable: true,
      get: () => {
        reads += 1
        throw new Error('second')
      },
    })
    expect(snapshotJsonValue({ a: value })).toEqual({
      ok: false,
      path: '$.a',
      reason: 'has getters on its elements, and one of them threw (Error: second)',
    })
    expect(reads).toBe(2)
  })

  it('T14: getters are read at most once, in short and long arrays, in small and large objects, and deep down', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(300), fc.nat(4)), { minLength: 1, maxLength: 6 }), (spots) => {
        const reads = new Map<string, number>()
        const shortArray = [0, 1, 2]
        const longArray = long(250)
        const object: Record<string, unknown> = { a: 1, b: 2 }
        // more keys than the walker copies by recursion, so the frame walk reads them
        const largeObject: Record<string, unknown> = Object.fromEntries(
          Array.from({ length: 70 }, (_, i) => [`p${i}`, i]),
        )
        // deeper than the walker recurses (64 levels): the frame walk copies it too
        const deepObject: Record<string, unknown> = { end: true }
        let chain: unknown = deepObject
        for (let level = 0; level < 70; level++) chain = { next: chain }
        const value = { shortArray, longArray, object, largeObject, chain }
        const targets = [object, largeObject, deepObject, shortArray, longArray] as const
        for (const [at, which] of spots) {
          const target: object = targets[which]!
          const key = Array.isArray(target) ? at % target.length : `k${at}`
          const id = `${which}:${key}`
          Object.defineProperty(target, key, {
            enumerable: true,
            configurable: true,
            get: () => {
              reads.set(id, (reads.get(id) ?? 0) + 1)
              return id
            },
          })
        }
        const copy = okValue(snapshotJsonValue(value, { maxDepth: 100 }))
        for (const count of reads.values()) expect(count).toBe(1)
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
      }),
      { numRuns: 100 },
    )
  })

  it('T13: the cheap key check runs no user code, even with a polluted prototype or an own constructor', () => {
    let ran = 0
    const tag = Object.getOwnPropertyDescriptor(Array.prototype, Symbol.toStringTag)
    Object.defineProperty(Array.prototype, Symbol.toStringTag, { configurable: true, get: () => `${++ran}` })
    try {
      expect(snapshotJsonValue(long()).ok).toBe(true)
    } finally {
      if (tag === undefined) Reflect.deleteProperty(Array.prototype, Symbol.toStringTag)
      else Object.defineProperty(Array.prototype, Symbol.toStringTag, tag)
    }
    const hostile = (): void => {}
    Object.defineProperty(hostile, Symbol.hasInstance, { get: () => ++ran })
    const withConstructor = Object.assign(long(), { constructor: hostile })
    expect(snapshotJsonValue(withConstructor)).toMatchObject({ ok: false, path: '$.constructor' })
    expect(ran).toBe(0)
  })
})
