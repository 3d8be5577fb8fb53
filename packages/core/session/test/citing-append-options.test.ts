import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  appendOptionsCiting,
  createAsyncSession,
  createMemorySession,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { isCitingAppendOptions } from '../src/tool-events/citing-append-options.ts'
import { isProvenEventData } from '../src/tool-events/proven-data.ts'
import { loadSecondCopy } from './support/second-copy.ts'
import { thrown } from './support/thrown.ts'

/** A session holding `count` events, so seqs 1…count exist. */
function sessionWith(count: number) {
  const session = createMemorySession()
  for (let i = 0; i < count; i++) session.append('note', { i })
  return session
}

describe('T58: append options built by the session are read without the generic walk', () => {
  it('T58: appendOptionsCiting gives the event what the literal options give it, field for field (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.boolean(), (cited, surface) => {
        const built = sessionWith(20).append('tool/result', { r: 1 }, appendOptionsCiting(cited, surface))
        const literal = sessionWith(20).append(
          'tool/result',
          { r: 1 },
          surface ? { surfaceOp: 'append', sourceEventSeqs: [cited] } : { sourceEventSeqs: [cited] },
        )
        expect({ ...built, time: '' }).toEqual({ ...literal, time: '' })
        expect(Object.keys(built)).toEqual(Object.keys(literal))
        expect(Object.isFrozen(built.sourceEventSeqs)).toBe(true)
      }),
    )
  })

  it('T58: options citing a seq that is not earlier than the new event are refused, as the literal is', () => {
    const session = sessionWith(3)
    const error = thrown(() => session.append('tool/result', {}, appendOptionsCiting(4, true)))
    expect([error.code, error.message]).toEqual([
      'INVALID_ARGUMENT',
      'append("tool/result", data, options): options.sourceEventSeqs[0] is 4, which is not an earlier event than seq 4',
    ])
    expect(session.read().length).toBe(3)
    expect(session.append('tool/result', {}, appendOptionsCiting(3, true)).sourceEventSeqs).toEqual([3])
  })

  it('T58: appendOptionsCiting refuses a seq that is not an integer ≥ 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '2' as unknown as number]) {
      expect(thrown(() => appendOptionsCiting(bad)).code).toBe('INVALID_ARGUMENT')
    }
  })

  it('T58: the built options are frozen and unforgeable: a copy, a Proxy or built event data are read like any options', () => {
    const built = appendOptionsCiting(1, true)
    expect(Object.isFrozen(built)).toBe(true)
    expect(Object.isFrozen(built.sourceEventSeqs)).toBe(true)
    expect(isCitingAppendOptions(built)).toBe(true)
    expect(isCitingAppendOptions({ ...built })).toBe(false)
    expect(isCitingAppendOptions(structuredClone(built))).toBe(false)
    expect(isProvenEventData(built)).toBe(false)
    // a copy goes through the generic check: a cited seq it changed is still refused
    const copy = { ...built, sourceEventSeqs: [5] }
    expect(thrown(() => sessionWith(1).append('x', {}, copy)).code).toBe('INVALID_ARGUMENT')
    let traps = 0
    const proxy = new Proxy(built, {
      get: (target, key, receiver) => {
        traps += 1
        return Reflect.get(target, key, receiver)
      },
    })
    expect(isCitingAppendOptions(proxy)).toBe(false)
    expect(thrown(() => sessionWith(1).append('x', {}, proxy)).code).toBe('INVALID_ARGUMENT')
    expect(traps).toBe(0)
  })

  it("T58: options built by a second copy of the package are read by this one's generic check, and work alike", async () => {
    const second = await loadSecondCopy()
    const theirs = second.appendOptionsCiting(1, true)
    expect(isCitingAppendOptions(theirs)).toBe(false)
    const event = sessionWith(1).append('tool/result', {}, theirs)
    expect([event.surfaceOp, event.sourceEventSeqs]).toEqual(['append', [1]])
    expect(second.createMemorySession().append('n', {}).seq).toBe(1)
  })

  it('T58: the asynchronous session takes the built options too', async () => {
    const written: SessionEvent[] = []
    const session = createAsyncSession({ write: async (events) => void written.push(...events) })
    await session.append('tool/call', {})
    const event = await session.append('tool/result', {}, appendOptionsCiting(1, true))
    expect([event.surfaceOp, event.sourceEventSeqs]).toEqual(['append', [1]])
    expect(written[1]?.sourceEventSeqs).toEqual([1])
  })
})
