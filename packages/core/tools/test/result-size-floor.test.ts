import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { jsonSizeFloor } from '../src/pipeline/result-size.ts'

const NO_LIMIT = Number.MAX_SAFE_INTEGER
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** A value of `count` distinct containers, each holding a string of `width` characters. */
function manyContainers(count: number, width: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ [`k${i}`]: 'x'.repeat(width) }))
}

describe('T14: the size floor a result is refused by (counted before the value is copied)', () => {
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
