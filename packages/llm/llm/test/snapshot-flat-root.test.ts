import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createJsonSnapshotter, snapshotJsonValue, type SnapshotResult } from '@deepseek-ai/dsh-llm'
import { referenceSnapshot } from './support/reference-snapshot.ts'

// A walker that remembers nothing copies a root object without its bookkeeping while the root's
// values are primitives, and hands the copy to the walk at its first container. It must answer
// exactly as the general walk (a snapshot that remembers its root, `freeze: true`) and the
// descriptor-per-key reference walker: same copy, same failure, each getter run as often.

/** One property of a generated root: how it is defined, and what it holds. */
type Property =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'getter'; readonly value: unknown }
  | { readonly kind: 'throwing-getter' }
  | { readonly kind: 'deleting-getter'; readonly value: unknown }
  | { readonly kind: 'non-enumerable' }
  | { readonly kind: 'cycle' }

const primitive = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(-0),
  fc.constant(Number.NaN),
  fc.bigInt(),
  fc.constant(Symbol.for('s')),
  fc.constant(() => 1),
)
/** `[1, <hole>, 3]`. */
function sparse(): unknown[] {
  const list = [1, 2, 3]
  Reflect.deleteProperty(list, 1)
  return list
}

const nested = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(new Date(0)), fc.constant(sparse()))
const property: fc.Arbitrary<Property> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('value' as const), value: primitive }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('value' as const), value: nested }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('getter' as const), value: fc.oneof(primitive, nested) }),
  },
  fc.record({ kind: fc.constant('throwing-getter' as const) }),
  fc.record({ kind: fc.constant('deleting-getter' as const), value: primitive }),
  fc.record({ kind: fc.constant('non-enumerable' as const) }),
  fc.record({ kind: fc.constant('cycle' as const) }),
)
const root = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', '__proto__', '0', '1'), property), {
  maxLength: 6,
})

/** Builds the root the properties describe; `runs` counts the getter calls made on it. */
function build(properties: readonly (readonly [string, Property])[], nullProto: boolean) {
  const target: Record<string, unknown> = nullProto ? (Object.create(null) as Record<string, unknown>) : {}
  const counter = { runs: 0 }
  const keys = properties.map(([key]) => key)
  for (const [key, spec] of properties) {
    const define = (descriptor: PropertyDescriptor) =>
      Object.defineProperty(target, key, { configurable: true, enumerable: true, ...descriptor })
    switch (spec.kind) {
      case 'value':
        define({ value: spec.value, writable: true })
        break
      case 'getter':
        define({ get: () => (counter.runs++, spec.value) })
        break
      case 'throwing-getter':
        define({
          get: () => {
            counter.runs++
            throw new Error('boom')
          },
        })
        break
      case 'deleting-getter':
        // deletes the keys after it: a walk must skip them, not read inherited values
        define({
          get: () => {
            counter.runs++
            for (const other of keys.slice(keys.indexOf(key) + 1)) Reflect.deleteProperty(target, other)
            return spec.value
          },
        })
        break
      case 'non-enumerable':
        define({ value: 1, enumerable: false })
        break
      case 'cycle':
        define({ value: { back: target }, writable: true })
        break
    }
  }
  return { target, counter }
}

function same(a: SnapshotResult, b: { ok: boolean }): void {
  if (a.ok && b.ok) {
    const value = (b as unknown as { value: unknown }).value
    expect(isDeepStrictEqual(a.value, value)).toBe(true)
    expect(JSON.stringify(a.value)).toBe(JSON.stringify(value))
  } else expect(a).toEqual(b)
}

describe('T14: a root object copied without the walk bookkeeping', () => {
  it('T14: equals the general walk and the reference walker, frozen or not, each getter run as often (property)', () => {
    const frozen = createJsonSnapshotter({ freeze: true, remember: false })
    const plain = createJsonSnapshotter({ freeze: false, remember: false })
    fc.assert(
      fc.property(root, fc.boolean(), fc.boolean(), (properties, nullProto, freeze) => {
        const flat = build(properties, nullProto)
        const general = build(properties, nullProto)
        const reference = build(properties, nullProto)
        const result = (freeze ? frozen : plain)(flat.target)
        // `freeze: true` remembers the root: the general walk, never the flat one
        const walked = snapshotJsonValue(general.target, { freeze: true })
        same(result, walked)
        same(result, referenceSnapshot(reference.target))
        expect(flat.counter.runs).toBe(general.counter.runs)
        if (result.ok && freeze) {
          expect(Object.isFrozen(result.value)).toBe(true)
          for (const child of Object.values(result.value as object)) {
            if (typeof child === 'object' && child !== null) expect(Object.isFrozen(child)).toBe(true)
          }
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('T14: a root whose values are all primitives is copied, -0 made 0 and undefined dropped', () => {
    const snapshot = createJsonSnapshotter({ freeze: true, remember: false })
    const input = { a: -0, b: undefined, c: 'x', d: null, e: true }
    const result = snapshot(input)
    expect(result).toEqual({ ok: true, value: { a: 0, c: 'x', d: null, e: true } })
    if (!result.ok) return
    expect(Object.is((result.value as { a: number }).a, 0)).toBe(true)
    expect(Object.keys(result.value as object)).toEqual(['a', 'c', 'd', 'e'])
    expect(result.value).not.toBe(input)
    expect(Object.isFrozen(result.value)).toBe(true)
  })

  it('T14: a root under maxDepth 0, and a root array, still take the general walk', () => {
    const none = createJsonSnapshotter({ freeze: true, remember: false, maxDepth: 0 })
    expect(none({ a: 1 })).toEqual({ ok: false, path: '$', reason: 'is nested deeper than maxDepth (0)' })
    const snapshot = createJsonSnapshotter({ freeze: true, remember: false })
    expect(snapshot([1, { a: 2 }])).toEqual({ ok: true, value: [1, { a: 2 }] })
  })
})
