import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jobIdFor } from '@deepseek-ai/dsh-dispatch-bullmq'

describe('job ids from call ids', () => {
  it('D5: distinct (namespace, call id) pairs get distinct job ids, each one BullMQ accepts (no ":", not an integer)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string({ unit: 'grapheme', minLength: 1 }), { nil: undefined }),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        fc.option(fc.string({ unit: 'grapheme', minLength: 1 }), { nil: undefined }),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        (ns1, id1, ns2, id2) => {
          const a = jobIdFor(id1, ns1)
          const b = jobIdFor(id2, ns2)
          for (const id of [a, b]) {
            expect(id).not.toContain(':')
            expect(`${Number.parseInt(id, 10)}`).not.toBe(id)
          }
          expect(a === b).toBe(ns1 === ns2 && id1 === id2)
        },
      ),
    )
  })

  it('keeps readable ids readable', () => {
    expect(jobIdFor('call_abc-1', undefined)).toBe('call-call_abc-1')
    expect(jobIdFor('a:b', 'session.1')).toBe('call-session%2E1.a%3Ab')
  })
})
