import { isDeepStrictEqual, types } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { referenceSnapshot } from './support/reference-snapshot.ts'

// The fast walker (bulk reads, cheap key checks, frozen-snapshot reuse) must answer exactly like the
// plain descriptor-per-key walker it replaced: same copy, or same path and reason. The only documented
// difference, when a long array (128+ elements) has several getters and one throws, is not generated.

const LONG = 128

class Point {
  x = 1
}

type Container = Record<string | number, unknown>
type Defect = (container: Container, key: string | number, root: object) => void

const define = (container: object, key: string | number, descriptor: PropertyDescriptor): void => {
  Object.defineProperty(container, key, { configurable: true, ...descriptor })
}
const put =
  (value: unknown) =>
  (container: object, key: string | number): void =>
    define(container, key, { value, writable: true, enumerable: true })

const revoked = Proxy.revocable({}, {})
revoked.revoke()

const DEFECTS: Record<string, Defect> = {
  bigint: put(5n),
  nan: put(Number.NaN),
  infinity: put(-Infinity),
  undefined: put(undefined),
  minusZero: put(-0),
  function: put(() => 1),
  symbolValue: put(Symbol.for('v')),
  symbolKey: (container) =>
    define(container, Symbol.for('k') as unknown as string, { value: 1, enumerable: true }),
  date: put(new Date(0)),
  map: put(new Map()),
  classInstance: put(new Point()),
  boxed: put(Object(1)),
  proxy: put(new Proxy({}, {})),
  revokedProxy: put(revoked.proxy),
  nullPrototype: put(Object.assign(Object.create(null) as object, { a: 1 })),
  hole: (container, key) => {
    if (Array.isArray(container)) Reflect.deleteProperty(container, key)
    else {
      const sparse = [1, 2, 3]
      delete sparse[1]
      put(sparse)(container, key)
    }
  },
  cycle: (container, key, root) => put(root)(container, key),
  selfCycle: (container, key) => put(container)(container, key),
  shared: (container, key, root) => {
    const shared = { s: [1, 2] }
    put(shared)(container, key)
    put(shared)(root as Container, 'sharedToo')
  },
  throwingGetter: (container, key) =>
    define(container, key, {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    }),
  getter: (container, key) => define(container, key, { enumerable: true, get: () => ({ got: [true] }) }),
  nonEnumerable: (container, key) => define(container, key, { value: 1, enumerable: false, writable: true }),
  namedOnArray: (container) => define(container, 'extra', { value: 1, enumerable: true, writable: true }),
  hiddenNamedOnArray: (container) => define(container, 'hidden', { value: 1, enumerable: false }),
  protoKey: (container) =>
    define(container, '__proto__', { value: { p: 1 }, enumerable: true, writable: true }),
}

/** JSON values whose arrays are sometimes long enough to take the bulk path. */
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('node'), { maxLength: 4 }),
    // Long arrays: mostly flat values, with at most two nested nodes, so sizes stay small.
    fc
      .tuple(
        fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: LONG, maxLength: LONG + 20 }),
        fc.array(fc.tuple(fc.nat(), tie('node')), { maxLength: 2 }),
      )
      .map(([flat, nested]) => {
        for (const [at, node] of nested) flat.splice(at % flat.length, 0, node as fc.JsonValue)
        return flat
      }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }),
    // Objects with many keys take the descriptor path.
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
      minKeys: 65,
      maxKeys: 70,
    }),
  ),
})).node

const root = fc.oneof(
  fc.array(value, { minLength: 1, maxLength: 3 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: LONG, maxLength: LONG + 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), value, { minKeys: 1, maxKeys: 4 }),
)

/** Every plain container reachable through enumerable data properties, each once, the root first. */
function containers(node: unknown, out: Container[] = []): Container[] {
  if (typeof node !== 'object' || node === null || types.isProxy(node) || out.includes(node as Container)) {
    return out
  }
  const proto: unknown = Object.getPrototypeOf(node)
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return out
  out.push(node as Container)
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(node))) {
    if (descriptor.enumerable === true && 'value' in descriptor) containers(descriptor.value, out)
  }
  return out
}

/** Applies one defect to a picked container at a picked key, inside a fresh JSON value. */
function inject(target: unknown, defect: Defect, pick: number, position: number, objectKey: string): void {
  const all = containers(target)
  const container = all[pick % all.length]!
  const key = Array.isArray(container) ? position % (container.length + 1) : objectKey
  if (Array.isArray(container) && key === container.length) container.push(0)
  defect(container, key, target as object)
}

function expectSameAnswer(input: unknown): void {
  const fast = snapshotJsonValue(input)
  const reference = referenceSnapshot(input)
  if (fast.ok && reference.ok) {
    expect(isDeepStrictEqual(fast.value, reference.value)).toBe(true)
    expect(JSON.stringify(fast.value)).toBe(JSON.stringify(reference.value))
  } else expect(fast).toEqual(reference)
}

describe('snapshotJsonValue agrees with the reference walker', () => {
  it('T14: on JSON values with short and long arrays', () => {
    fc.assert(
      fc.property(root, (input) => expectSameAnswer(input)),
      { numRuns: 150 },
    )
  }, 60_000)

  it('T13/T14: on values with one defect anywhere, long arrays included', () => {
    fc.assert(
      fc.property(
        root,
        fc.constantFrom(...Object.keys(DEFECTS)),
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 3 }),
        (generated, name, pick, position, objectKey) => {
          // Defects go into a copy: fast-check may read its generated value again (a throwing getter!).
          const input = structuredClone(generated)
          inject(input, DEFECTS[name]!, pick, position, objectKey)
          expectSameAnswer(input)
        },
      ),
      { numRuns: 400 },
    )
  }, 120_000)

  it('T13/T14: on values with several defects, in the same order, when no long array has two getters', () => {
    const small = fc.oneof(
      fc.array(value, { minLength: 1, maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 4 }), value, { minKeys: 1, maxKeys: 4 }),
    )
    const defect = fc.tuple(
      fc.constantFrom(...Object.keys(DEFECTS)),
      fc.nat(),
      fc.nat(),
      fc.string({ maxLength: 3 }),
    )
    fc.assert(
      fc.property(small, fc.array(defect, { minLength: 2, maxLength: 4 }), (generated, defects) => {
        const input = structuredClone(generated)
        for (const [name, pick, position, objectKey] of defects) {
          inject(input, DEFECTS[name]!, pick, position, objectKey)
        }
        const getters = containers(input).filter(
          (container) =>
            Array.isArray(container) &&
            container.length >= LONG &&
            Object.values(Object.getOwnPropertyDescriptors(container)).filter((d) => d.get !== undefined)
              .length > 1,
        )
        fc.pre(getters.length === 0)
        expectSameAnswer(input)
      }),
      { numRuns: 500 },
    )
  }, 60_000)
})
