import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { LlmError, snapshotJsonValue, type SnapshotResult } from '@deepseek-ai/dsh-llm'

function okValue(result: SnapshotResult): unknown {
  if (!result.ok) throw new Error(`expected ok, got ${result.path} ${result.reason}`)
  return result.value
}

function expectFailure(result: SnapshotResult, path: string, reason?: RegExp): void {
  expect(result.ok).toBe(false)
  if (result.ok) return
  expect(result.path).toBe(path)
  if (reason !== undefined) expect(result.reason).toMatch(reason)
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const segment = (key: string | number): string =>
  typeof key === 'number' ? `[${key}]` : IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`

describe('snapshotJsonValue: lossless values', () => {
  it('T14: every JSON value round-trips and survives JSON.parse(JSON.stringify(x)) unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = okValue(snapshotJsonValue(value))
        expect(copy).toStrictEqual(JSON.parse(JSON.stringify(value)))
        expect(JSON.parse(JSON.stringify(copy))).toStrictEqual(copy)
      }),
      { numRuns: 300 },
    )
  })

  it('objects with __proto__, constructor and prototype keys round-trip as plain data', () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a', '')
    // JSON texts, so that `__proto__` keys become own data properties exactly as JSON.parse makes them.
    const jsonText = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }).map((value) => JSON.stringify(value)),
        fc.array(tie('node'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(key, tie('node')), { maxLength: 4 })
          .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
      ),
    })).node
    fc.assert(
      fc.property(jsonText, (text) => {
        const parsed: unknown = JSON.parse(text)
        const copy = okValue(snapshotJsonValue(parsed))
        expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed))
        // vitest's toStrictEqual reads `.constructor`, which these objects own as data: compare with node.
        expect(isDeepStrictEqual(JSON.parse(JSON.stringify(copy)), copy)).toBe(true)
        expect(isDeepStrictEqual(copy, parsed)).toBe(true)
      }),
      { numRuns: 200 },
    )
    const copy = okValue(snapshotJsonValue(JSON.parse('{"__proto__":{"polluted":true},"a":1}'))) as Record<
      string,
      unknown
    >
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"a":1}')
  })

  it('the copy is detached: mutating the input afterwards never changes it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())), (value) => {
        const copy = okValue(snapshotJsonValue(value))
        const before = JSON.stringify(copy)
        mutateEverywhere(value)
        expect(JSON.stringify(copy)).toBe(before)
      }),
      { numRuns: 200 },
    )
  })

  it('output containers are plain Object.prototype objects and arrays, even from null-prototype input', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: [Object.create(null)] })
    const copy = okValue(snapshotJsonValue(input)) as { a: object[] }
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(copy.a)).toBe(Array.prototype)
    expect(Object.getPrototypeOf(copy.a[0])).toBe(Object.prototype)
  })

  it('drops undefined object properties and turns -0 into 0, as JSON.stringify does', () => {
    const copy = okValue(snapshotJsonValue({ a: undefined, b: -0, c: [-0] }))
    expect(copy).toStrictEqual({ b: 0, c: [0] })
    expect(Object.is((copy as { b: number }).b, 0)).toBe(true)
  })

  it('reads a getter that returns JSON exactly once and copies its value', () => {
    let reads = 0
    const input = {
      get x() {
        reads += 1
        return { n: reads }
      },
    }
    expect(okValue(snapshotJsonValue(input))).toStrictEqual({ x: { n: 1 } })
    expect(reads).toBe(1)
  })

  it('accepts shared subobjects that are not cycles, copying each once', () => {
    const shared = { v: 1 }
    const copy = okValue(snapshotJsonValue({ a: shared, b: [shared, shared] })) as { a: object; b: object[] }
    expect(copy).toStrictEqual({ a: { v: 1 }, b: [{ v: 1 }, { v: 1 }] })
    expect(copy.b[0]).toBe(copy.a)
    expect(copy.a).not.toBe(shared)
    let node: unknown = 'leaf'
    for (let i = 0; i < 12; i += 1) node = [node, node]
    expect(JSON.stringify(okValue(snapshotJsonValue(node)))).toBe(JSON.stringify(node))
  })

  it('rejects sharing that would hide excess depth or blow up the JSON text exponentially', () => {
    // 60 levels of doubling are 121 objects but 2^60 values once written out.
    let bomb: unknown = 'leaf'
    for (let i = 0; i < 60; i += 1) bomb = [bomb, bomb]
    const result = snapshotJsonValue(bomb)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toMatch(/JSON text would hold over 1000000 extra values/)
    let deep: unknown = 0
    for (let i = 0; i < 3; i += 1) deep = [deep]
    expectFailure(
      snapshotJsonValue({ a: deep, b: [[deep]] }, { maxDepth: 5 }),
      '$.b[0][0]',
      /deeper than maxDepth \(5\)/,
    )
    expect(snapshotJsonValue({ a: deep, b: [deep] }, { maxDepth: 5 }).ok).toBe(true)
  })

  it('keeps lone surrogates and unusual keys', () => {
    const value = { '\ud800': '\udfff', 'a b': 1, '': [''] }
    expect(okValue(snapshotJsonValue(value))).toStrictEqual(value)
  })
})

type Lossy = {
  readonly name: string
  /** Places the lossy thing at `key` of `container`; returns the path suffix below that key. */
  readonly inject: (container: Record<string | number, unknown>, key: string | number, root: object) => string
  readonly reason: RegExp
}

const set = (container: object, key: string | number, value: unknown): void => {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true })
}

/** `[1, <hole>, 3]`, built without a sparse literal. */
function sparse(): unknown[] {
  const array = [1, 2, 3]
  delete array[1]
  return array
}

class Point {
  x = 1
}

const revoked = Proxy.revocable({}, {})
revoked.revoke()

const LOSSY: readonly Lossy[] = [
  { name: 'BigInt', inject: (c, k) => (set(c, k, 10n), ''), reason: /^is a BigInt$/ },
  { name: 'NaN', inject: (c, k) => (set(c, k, Number.NaN), ''), reason: /^is NaN$/ },
  { name: 'Infinity', inject: (c, k) => (set(c, k, Infinity), ''), reason: /^is Infinity$/ },
  { name: '-Infinity', inject: (c, k) => (set(c, k, -Infinity), ''), reason: /^is -Infinity$/ },
  {
    name: 'undefined in an array',
    inject: (c, k) => (set(c, k, [1, undefined]), '[1]'),
    reason: /undefined inside an array/,
  },
  { name: 'function', inject: (c, k) => (set(c, k, () => 1), ''), reason: /^is a function$/ },
  { name: 'symbol', inject: (c, k) => (set(c, k, Symbol.for('x')), ''), reason: /^is a symbol$/ },
  { name: 'symbol key', inject: (c, k) => (set(c, k, { [Symbol.for('k')]: 1 }), ''), reason: /symbol-keyed/ },
  { name: 'Date', inject: (c, k) => (set(c, k, new Date(0)), ''), reason: /Date/ },
  { name: 'Map', inject: (c, k) => (set(c, k, new Map([[1, 2]])), ''), reason: /Map/ },
  { name: 'Set', inject: (c, k) => (set(c, k, new Set()), ''), reason: /Set/ },
  { name: 'RegExp', inject: (c, k) => (set(c, k, /x/), ''), reason: /RegExp/ },
  { name: 'typed array', inject: (c, k) => (set(c, k, new Uint8Array(2)), ''), reason: /Uint8Array/ },
  { name: 'boxed string', inject: (c, k) => (set(c, k, Object('s')), ''), reason: /String/ },
  { name: 'Error', inject: (c, k) => (set(c, k, new Error('e')), ''), reason: /Error/ },
  { name: 'class instance', inject: (c, k) => (set(c, k, new Point()), ''), reason: /instance of Point/ },
  { name: 'sparse array', inject: (c, k) => (set(c, k, sparse()), '[1]'), reason: /hole/ },
  {
    name: 'cycle to the root',
    inject: (c, k, root) => (set(c, k, root), ''),
    reason: /cycle \(refers back to \$\)/,
  },
  { name: 'cycle to itself', inject: (c, k) => (set(c, k, c), ''), reason: /cycle/ },
  {
    name: 'throwing getter',
    inject: (c, k) => {
      Object.defineProperty(c, k, {
        get() {
          throw new Error('boom')
        },
        enumerable: true,
        configurable: true,
      })
      return ''
    },
    reason: /getter that threw \(Error: boom\)/,
  },
  {
    name: 'non-enumerable property',
    inject: (c, k) => {
      Object.defineProperty(c, k, { value: 1, enumerable: false, configurable: true, writable: true })
      return ''
    },
    reason: /non-enumerable/,
  },
  { name: 'proxy', inject: (c, k) => (set(c, k, new Proxy({ a: 1 }, {})), ''), reason: /^is a Proxy$/ },
  { name: 'revoked proxy', inject: (c, k) => (set(c, k, revoked.proxy), ''), reason: /^is a Proxy$/ },
]

/** Every container in `value` with its path, the root first. */
function containers(value: unknown): { container: Record<string | number, unknown>; path: string }[] {
  const out: { container: Record<string | number, unknown>; path: string }[] = []
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return
    out.push({ container: node as Record<string | number, unknown>, path })
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, path + segment(i)))
    else for (const [key, child] of Object.entries(node)) walk(child, path + segment(key))
  }
  walk(value, '$')
  return out
}

const jsonContainer = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()))

describe('snapshotJsonValue: lossy input is rejected with the right path', () => {
  it('T13/T14: a lossy thing injected anywhere in a JSON value is reported at its path', () => {
    fc.assert(
      fc.property(
        jsonContainer,
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 6 }),
        fc.constantFrom(...LOSSY),
        (root, pick, position, objectKey, lossy) => {
          const all = containers(root)
          const { container, path } = all[pick % all.length]!
          let key: string | number
          if (Array.isArray(container)) {
            key = position % (container.length + 1)
            container.splice(key, 0, 'placeholder')
          } else key = objectKey
          const suffix = lossy.inject(container, key, root)
          const result = snapshotJsonValue(root)
          expectFailure(result, path + segment(key) + suffix, lossy.reason)
        },
      ),
      { numRuns: 600 },
    )
  })

  it('rejects lossy values at the top level with path $', () => {
    expectFailure(snapshotJsonValue(undefined), '$', /^is undefined$/)
    expectFailure(snapshotJsonValue(1n), '$', /BigInt/)
    expectFailure(snapshotJsonValue(Number.NaN), '$', /NaN/)
    expectFailure(
      snapshotJsonValue(() => 1),
      '$',
      /function/,
    )
    expectFailure(snapshotJsonValue(Symbol.for('s')), '$', /symbol/)
    expectFailure(snapshotJsonValue(new Date()), '$', /Date/)
    expectFailure(snapshotJsonValue(revoked.proxy), '$', /Proxy/)
    expectFailure(snapshotJsonValue(Object.assign([1], { extra: 2 })), '$.extra', /non-index/)
    expectFailure(snapshotJsonValue(new Array(5)), '$[0]', /hole/)
  })

  it('names paths with odd keys JSONPath-style', () => {
    expectFailure(snapshotJsonValue({ 'a b': { c: [0, { 'd-e': 1n }] } }), '$["a b"].c[1]["d-e"]', /BigInt/)
  })

  it('never throws, for any input at all', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        (value) => {
          const result = snapshotJsonValue(value)
          if (result.ok) expect(JSON.parse(JSON.stringify(result.value))).toStrictEqual(result.value)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('never throws on hostile proxies, throwing getters or hostile thrown values', () => {
    const trap = (): never => {
      throw new Error('trap')
    }
    const hostile = new Proxy(
      {},
      { get: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap, has: trap },
    )
    expectFailure(snapshotJsonValue({ a: hostile }), '$.a', /Proxy/)
    expectFailure(snapshotJsonValue([new Proxy(() => 1, {})]), '$[0]', /Proxy/)
    const throwsHostile = {
      get x(): never {
        throw hostile
      },
    }
    expectFailure(snapshotJsonValue(throwsHostile), '$.x', /getter that threw \(a Proxy\)/)
    const throwsString = {
      get y(): never {
        throw 'nope' as unknown as Error
      },
    }
    expectFailure(snapshotJsonValue(throwsString), '$.y', /getter that threw \(the string "nope"\)/)
    const trickyMessage = new Error('x')
    Object.defineProperty(trickyMessage, 'message', { get: trap })
    const throwsTricky = {
      get z(): never {
        throw trickyMessage
      },
    }
    expectFailure(snapshotJsonValue(throwsTricky), '$.z', /getter that threw \(an instance of Error\)/)
  })

  it('T14: a well-behaved proxy nested in an object or array is refused before any of its traps runs', () => {
    const trapped: string[] = []
    const spy = <T extends object>(target: T): T =>
      new Proxy(target, {
        get: (t, key, receiver) => (trapped.push(`get ${String(key)}`), Reflect.get(t, key, receiver)),
        ownKeys: (t) => (trapped.push('ownKeys'), Reflect.ownKeys(t)),
        getOwnPropertyDescriptor: (t, key) => (
          trapped.push(`descriptor ${String(key)}`),
          Reflect.getOwnPropertyDescriptor(t, key)
        ),
        getPrototypeOf: (t) => (trapped.push('getPrototypeOf'), Reflect.getPrototypeOf(t)),
      })
    expectFailure(snapshotJsonValue({ a: { b: spy({ c: 1 }) } }), '$.a.b', /is a Proxy/)
    expectFailure(snapshotJsonValue([1, spy([2, 3])]), '$[1]', /is a Proxy/)
    expectFailure(snapshotJsonValue(spy({ c: 1 })), '$', /is a Proxy/)
    expect(trapped).toEqual([])
  })

  it('T14: in a long array, a problem inside an element before a throwing getter is reported first, in walk order', () => {
    const long: unknown[] = Array.from({ length: 200 }, (_, i) => i)
    long[75] = [1, 2, new Date(0)]
    Object.defineProperty(long, 117, {
      enumerable: true,
      configurable: true,
      get() {
        throw new Error('boom')
      },
    })
    expectFailure(snapshotJsonValue([long]), '$[0][75][2]', /is an instance of Date/)
    long[75] = 'fine'
    expectFailure(snapshotJsonValue([long]), '$[0][117]', /has a getter that threw \(Error: boom\)/)
    Object.defineProperty(long, 50, { value: 1, enumerable: false })
    expectFailure(snapshotJsonValue([long]), '$[0][50]', /is a non-enumerable property/)
  })

  it('a getter that deletes a later property does not crash the walk', () => {
    const input: Record<string, unknown> = {
      get a() {
        delete input.b
        return 1
      },
      b: 2,
    }
    expect(okValue(snapshotJsonValue(input))).toStrictEqual({ a: 1 })
  })
})

describe('snapshotJsonValue: depth', () => {
  it('rejects nesting deeper than maxDepth (default 1000) without overflowing the stack', () => {
    let deep: unknown = 0
    for (let i = 0; i < 100_000; i += 1) deep = [deep]
    const result = snapshotJsonValue(deep)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.reason).toBe('is nested deeper than maxDepth (1000)')
      expect(result.path).toBe(`$${'[0]'.repeat(1000)}`)
    }
    let ok: unknown = 0
    for (let i = 0; i < 1000; i += 1) ok = { a: ok }
    expect(snapshotJsonValue(ok).ok).toBe(true)
  })

  it('honours options.maxDepth and validates it', () => {
    expect(snapshotJsonValue([[1]], { maxDepth: 2 }).ok).toBe(true)
    expectFailure(snapshotJsonValue([[[1]]], { maxDepth: 2 }), '$[0][0]', /maxDepth \(2\)/)
    expectFailure(snapshotJsonValue([], { maxDepth: 0 }), '$', /maxDepth \(0\)/)
    expect(snapshotJsonValue('x', { maxDepth: 0 }).ok).toBe(true)
    // A deep walk with a huge limit still cannot overflow: the walk is iterative.
    let deep: unknown = 0
    for (let i = 0; i < 50_000; i += 1) deep = [deep]
    expect(snapshotJsonValue(deep, { maxDepth: 1_000_000 }).ok).toBe(true)
    for (const bad of [-1, 1.5, Number.NaN, '3']) {
      expect(() => snapshotJsonValue(1, { maxDepth: bad as number })).toThrowError(
        /options\.maxDepth must be a non-negative integer/,
      )
    }
    try {
      snapshotJsonValue(1, { maxDepth: -1 })
    } catch (error) {
      expect(LlmError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT')
    }
  })
})

function mutateEverywhere(value: unknown): void {
  for (const { container } of containers(value)) {
    if (Array.isArray(container)) container.push('mutated')
    else {
      for (const key of Object.keys(container)) container[key] = 'mutated'
      container.added = 1
    }
  }
}
