import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createJsonSnapshotter, snapshotJsonValue, type JsonValue } from '@deepseek-ai/dsh-llm'

/** `count` objects nested in a chain, each also holding the one `shared` object: past the walker's short list of containers. */
function chain(count: number, shared: object): Record<string, unknown> {
  let value: Record<string, unknown> = { end: true, shared }
  for (let index = 0; index < count; index++) value = { index, next: value, shared }
  return value
}

describe('T14: a reused snapshotter walks each value afresh', () => {
  it('T14: each snapshot of a reused snapshotter equals snapshotJsonValue, and no copy of an earlier walk is reused (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (values, freeze) => {
          const snapshot = createJsonSnapshotter({ freeze, remember: false })
          let previousInput: unknown
          let previousCopy: unknown
          for (const json of values) {
            // Each value holds the one before it: a walker that remembered its last walk would
            // take that input for a container it had copied already, and share the old copy.
            const input = { json, previous: previousInput ?? null }
            const result = snapshot(input)
            expect(result).toEqual(snapshotJsonValue(input))
            if (!result.ok) throw new Error(result.reason)
            const copy = result.value as { previous: JsonValue }
            if (previousCopy !== undefined) expect(copy.previous).not.toBe(previousCopy)
            previousInput = input
            previousCopy = copy
          }
        },
      ),
    )
  })

  it('T14: with more containers than its short list, sharing and cycles are found in the walk after the last one too', () => {
    const snapshot = createJsonSnapshotter({ freeze: true, remember: false })
    const shared = { s: 1 }
    for (let round = 0; round < 3; round++) {
      const result = snapshot(chain(40, shared))
      expect(result.ok).toBe(true)
      if (!result.ok) return
      let node = result.value as { next?: unknown; shared: unknown }
      const copyOfShared = node.shared
      expect(copyOfShared).toEqual(shared)
      expect(copyOfShared).not.toBe(shared)
      // one copy of the shared object, held by every level
      while (node.next !== undefined) {
        node = node.next as { next?: unknown; shared: unknown }
        expect(node.shared).toBe(copyOfShared)
      }
      const cyclic = chain(20, shared)
      let last = cyclic
      while (last.next !== undefined) last = last.next as Record<string, unknown>
      last.back = cyclic
      expect(snapshot(cyclic)).toEqual({
        ok: false,
        path: `$${'.next'.repeat(20)}.back`,
        reason: 'is a cycle (refers back to $)',
      })
    }
  })
})
