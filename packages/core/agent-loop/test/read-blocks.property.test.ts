import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPlainCallId } from '../src/log/create-call-id-allocator.ts'
import { readBlocks } from '../src/read-execute-tool-calls-options.ts'

// `executeToolCalls` checks a step's ids against each other: pairwise up to 16 calls, with a set
// beyond. Oracle: the rule itself (the first block whose id an earlier block holds is named), over
// steps on both sides of the threshold, with ids from a small alphabet so repeats are common.
const ID = fc.constantFrom('a', 'b', 'call_0', 'call_1', 'd#2', 'X:code:0', 'X', 'e', 'f', 'g')
const uniqueIds = (min: number, max: number) =>
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: min, maxLength: max })

function outcome(ids: readonly string[]) {
  const toolCalls = ids.map((id) => ({ type: 'tool-call', id, name: 'add', arguments: '{}' }))
  try {
    const { blocks, stepIds } = readBlocks(toolCalls)
    return { blocks: blocks.map((block) => ({ ...block })), stepIds }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

function expected(ids: readonly string[]) {
  const twice = ids.findIndex((id, i) => ids.indexOf(id) < i)
  if (twice >= 0)
    return {
      error: `executeToolCalls(options): options.toolCalls[${twice}].id "${ids[twice]}" is used twice in one step`,
    }
  return {
    blocks: ids.map((id) => ({ type: 'tool-call', id, name: 'add', arguments: '{}' })),
    stepIds: ids.every(isPlainCallId) ? 'plain' : 'any',
  }
}

describe("executeToolCalls' check of a step's ids", () => {
  it('T28: a repeated id is named at its second use, pairwise and by set alike; unique ids pass as given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(ID, { maxLength: 20 }),
          uniqueIds(0, 40),
          fc
            .tuple(uniqueIds(1, 40), fc.nat(), fc.nat())
            .map(([ids, from, to]) => [...ids.slice(0, 1 + (to % ids.length)), ids[from % ids.length]!]),
        ),
        (ids) => {
          expect(outcome(ids)).toEqual(expected(ids))
        },
      ),
      { numRuns: 1000 },
    )
  })
})
