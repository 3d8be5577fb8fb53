import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
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
