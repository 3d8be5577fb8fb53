import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { jsonSizeFloor } from '../src/pipeline/result-size.ts'

const NO_LIMIT = Number.MAX_SAFE_INTEGER
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** A value of `count` distinct containers, each holding a string of `width` characters. */
function manyContainers(count: number, width: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ [`k${i}`]: 'x'.repeat(width) }))
}

/**
 * The floor as it was counted with property descriptors (before the walk looked accessors up without
 * making a descriptor): the oracle for values with getters, setters and undefined members.
 */
function descriptorFloor(value: unknown, limit: number): number {
  const met = new Set<object>()
  const stack: unknown[] = [value]
  let floor = 0
  while (stack.length > 0 && floor <= limit) {
    const current = stack.pop()
    if (typeof current !== 'object' || current === null) {
      if (typeof current === 'string') floor += current.length + 2
      else if (typeof current === 'number') {
        const abs = Math.abs(current)
        let digits = 1
        if (!Number.isInteger(current) || abs >= 1e15) digits = 1
        else for (let bound = 10; abs >= bound; bound *= 10) digits++
        floor += current < 0 ? digits + 1 : digits
      } else floor += current === null ? 4 : 1
      continue
    }
    if (met.has(current)) continue
    met.add(current)
    const keys = Array.isArray(current) ? [...current.keys()].map(String) : Object.keys(current)
    floor += 1 + Math.max(1, keys.length)
    for (let i = 0; i < keys.length && floor <= limit; i++) {
      if (!Array.isArray(current)) floor += keys[i]!.length + 3
      const descriptor = Object.getOwnPropertyDescriptor(current, keys[i]!)
      if (descriptor !== undefined && 'value' in descriptor) stack.push(descriptor.value)
    }
  }
  return floor
}

/** Turns some members of `value`'s objects into accessors (a getter that throws if run) or `undefined`. */
function withAccessors(value: unknown, choices: readonly number[]): unknown {
  let next = 0
  const visit = (current: unknown): void => {
    if (typeof current !== 'object' || current === null) return
    if (Array.isArray(current)) return current.forEach(visit)
    for (const key of Object.keys(current)) {
      const choice = choices.length === 0 ? 0 : choices[next++ % choices.length]! % 5
      const held = (current as Record<string, unknown>)[key]
      visit(held)
      const getter = (): never => {
        throw new Error('the size floor ran a getter')
      }
      if (choice === 1) Object.defineProperty(current, key, { get: getter, enumerable: true })
      else if (choice === 2) Object.defineProperty(current, key, { set: () => {}, enumerable: true })
      else if (choice === 3)
        Object.defineProperty(current, key, { get: getter, set: () => {}, enumerable: true })
      else if (choice === 4) (current as Record<string, unknown>)[key] = undefined
    }
  }
  visit(value)
  return value
}

describe('T14: the size floor a result is refused by (counted before the value is copied)', () => {
  it('T14: counts what the descriptor walk counted, accessors and undefined members included, and runs no getter', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 0, max: 200 }),
        (json, choices, limit) => {
          const value = withAccessors(json, choices)
          expect(jsonSizeFloor(value, NO_LIMIT)).toBe(descriptorFloor(value, NO_LIMIT))
          expect(jsonSizeFloor(value, limit)).toBe(descriptorFloor(value, limit))
        },
      ),
      { numRuns: 1000 },
    )
    // a setter alone is an accessor: skipped like a getter, not counted as an undefined member
    const setterOnly = Object.defineProperty({}, 'a', { set: () => {}, enumerable: true })
    expect(jsonSizeFloor(setterOnly, NO_LIMIT)).toBe(jsonSizeFloor({ a: undefined }, NO_LIMIT) - 1)
  })

  it('T14: never exceeds the UTF-8 size of the JSON text (JSON.stringify is the oracle)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonSizeFloor(value, NO_LIMIT)).toBeLessThanOrEqual(jsonBytes(value))
      }),
    )
  })

  it('T14: a value measured twice gets the same floor: nothing one walk met is skipped by the next', () => {
    // the walks share what they remember of the containers they met; each must start empty
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const first = jsonSizeFloor(value, NO_LIMIT)
        expect(jsonSizeFloor(value, NO_LIMIT)).toBe(first)
      }),
    )
    for (const count of [1, 16, 17, 40, 2000]) {
      const value = manyContainers(count, 100)
      const first = jsonSizeFloor(value, NO_LIMIT)
      expect(first).toBeGreaterThan(count * 100)
      expect(jsonSizeFloor(value, NO_LIMIT)).toBe(first)
      // a walk given up at the limit leaves nothing behind either
      expect(jsonSizeFloor(value, 50)).toBeGreaterThan(50)
      expect(jsonSizeFloor(value, NO_LIMIT)).toBe(first)
    }
  })

  it('T14: a container met again (shared or a cycle) is counted once, with few containers or many', () => {
    for (const count of [3, 16, 17, 64]) {
      const parts = manyContainers(count, 10)
      const once = jsonSizeFloor(parts, NO_LIMIT)
      const cyclic: unknown[] = [...parts]
      cyclic.push(cyclic, parts, ...parts)
      // each container counted once: the copy's own extra slots, `parts` (new here, its elements
      // met already) and nothing for the cycle
      expect(jsonSizeFloor(cyclic, NO_LIMIT)).toBe(once + (count + 2) + (1 + count))
    }
  })

  it('T14: a value larger than the limit passes it, however many containers it has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 200 }), (count, width) => {
        const value = manyContainers(count, width)
        // its strings alone exceed the limit
        const limit = count * width - 1
        expect(jsonSizeFloor(value, limit)).toBeGreaterThan(limit)
        expect(jsonSizeFloor(value, NO_LIMIT)).toBeLessThanOrEqual(jsonBytes(value))
      }),
    )
  })
})
