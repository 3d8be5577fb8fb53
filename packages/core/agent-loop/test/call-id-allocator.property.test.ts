import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { nestedCallParent } from '@deepseek-ai/dsh-tools'
import { createCallIdAllocator, isPlainCallId } from '../src/log/create-call-id-allocator.ts'

// The allocator on its own, against itself: for a step whose ids are `plain` (unique, none with `#`,
// none nested), the mode that looks only at the session's ids must give every call the id the full
// check gives it. Ids come from a small alphabet holding the shapes that collide: ids the loop
// gives (`d#2`), nested ids (`X:code:0`) and their parents.
const ID = fc.constantFrom('d', 'e', 'call_0', 'd#2', 'd#3', 'X', 'X:code:0', 'X#2', 'X#2:code:0', 'e#2')
const PLAIN_ID = fc.constantFrom('d', 'e', 'call_0', 'X', 'f')

function sessionWith(recorded: readonly string[]) {
  const session = createMemorySession()
  recorded.forEach((callId, i) =>
    session.append('tool/call', { turn: 1, step: i + 1, callId, name: 'echo', arguments: '{}' }),
  )
  return session
}

const assigned = (session: ReturnType<typeof sessionWith>, ids: readonly string[], mode: 'plain' | 'any') => {
  const allocator = createCallIdAllocator(session, mode)
  return ids.map((id) => allocator.assign(toolCallBlock({ id, name: 'echo', args: {} })))
}

describe('the call-id allocator of a step whose ids are plain', () => {
  it('T28/T30: gives each call the id the full check gives it, unique in the session, the model id kept beside a renamed one', () => {
    fc.assert(
      fc.property(
        fc.array(ID, { maxLength: 8 }),
        fc.uniqueArray(PLAIN_ID, { minLength: 1, maxLength: 5 }),
        (recorded, step) => {
          expect(step.every(isPlainCallId)).toBe(true)
          const plain = assigned(sessionWith(recorded), step, 'plain')
          expect(plain).toEqual(assigned(sessionWith(recorded), step, 'any'))
          const ids = plain.map((block) => block.id)
          expect(new Set(ids).size).toBe(ids.length)
          for (const [i, block] of plain.entries()) {
            expect(recorded).not.toContain(block.id)
            expect(block.modelCallId ?? block.id).toBe(step[i])
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  it('T30/T33: an id holding `#` or naming a nested call is never plain', () => {
    expect(['d', 'call_0', 'X', 'functions.add:0'].map(isPlainCallId)).toEqual([true, true, true, true])
    expect(['d#2', 'X:code:0', 'X#2:code:0'].map(isPlainCallId)).toEqual([false, false, false])
  })
})

// The session's ids are read on from step to step (`afterSeq` the last event read). Oracle: the
// rule itself over a full read of the log's `tool/call`s at each step, with the log growing between
// steps by the step's own calls (some never recorded), other writers' calls, and events of other
// types that carry a `callId` too (only a `tool/call` records an id).
type LogOp =
  | { readonly kind: 'call'; readonly id: string }
  | { readonly kind: 'note'; readonly id: string }
  | {
      readonly kind: 'step'
      readonly ids: readonly string[]
      readonly mode: 'plain' | 'any'
      readonly recorded: number
    }

const LOG_OP: fc.Arbitrary<LogOp> = fc.oneof(
  fc.record({ kind: fc.constant('call' as const), id: ID }),
  fc.record({ kind: fc.constant('note' as const), id: ID }),
  fc.record({
    kind: fc.constant('step' as const),
    ids: fc.uniqueArray(PLAIN_ID, { minLength: 1, maxLength: 4 }),
    mode: fc.constant('plain' as const),
    recorded: fc.nat({ max: 4 }),
  }),
  fc.record({
    kind: fc.constant('step' as const),
    ids: fc.uniqueArray(ID, { minLength: 1, maxLength: 4 }),
    mode: fc.constant('any' as const),
    recorded: fc.nat({ max: 4 }),
  }),
)

/** The rule (T28/T30) over every `tool/call` of the log, read whole. */
function expectedIds(session: ReturnType<typeof createMemorySession>, ids: readonly string[]): string[] {
  const used = new Set<string>()
  const parents = new Set<string>()
  const take = (callId: string) => {
    used.add(callId)
    const parent = nestedCallParent(callId)
    if (parent !== undefined) parents.add(parent)
  }
  for (const event of session.read({ types: ['tool/call'] })) take((event.data as { callId: string }).callId)
  const stepUsed = new Set<string>()
  const free = (callId: string) => {
    const parent = nestedCallParent(callId)
    return (
      !used.has(callId) &&
      !parents.has(callId) &&
      !stepUsed.has(callId) &&
      ![...stepUsed].some((id) => nestedCallParent(id) === callId) &&
      (parent === undefined || !stepUsed.has(parent))
    )
  }
  return ids.map((id) => {
    let callId = id
    for (let n = 2; !free(callId); n++) callId = `${id}#${n}`
    stepUsed.add(callId)
    return callId
  })
}

describe('the call-id allocator reading the session on from its last read', () => {
  it('T28/T30: each step gets the ids a full read of the log gives, whatever was appended between steps', () => {
    fc.assert(
      fc.property(fc.array(LOG_OP, { maxLength: 14 }), (ops) => {
        const session = createMemorySession()
        let step = 0
        for (const op of ops) {
          if (op.kind === 'call')
            session.append('tool/call', { turn: 1, step: 0, callId: op.id, name: 'echo', arguments: '{}' })
          else if (op.kind === 'note') session.append('custom/note', { callId: op.id })
          else {
            step++
            const expected = expectedIds(session, op.ids)
            const allocator = createCallIdAllocator(session, op.mode)
            const blocks = op.ids.map((id) => allocator.assign(toolCallBlock({ id, name: 'echo', args: {} })))
            expect(blocks.map((block) => block.id)).toEqual(expected)
            // the step records its first calls (the rest never started), with something between
            for (const block of blocks.slice(0, op.recorded)) {
              session.append('tool/call', { turn: 1, step, callId: block.id, name: 'echo', arguments: '{}' })
              session.append('custom/note', { callId: `${block.id}#9` })
            }
          }
        }
      }),
      { numRuns: 500 },
    )
  })
})
