import fc from 'fast-check'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { createStepCalls } from '../src/step-batch/step-calls.ts'

// The step's call record on its own: no session, no clock, no batch. A late outcome is opaque to
// it, so a plain stand-in does.
const block = (id: string) => ({ type: 'tool-call' as const, id, name: 't', arguments: '{}' })
const outcome = (tag: string) => ({ kind: 'settled', tag }) as unknown as LateToolOutcome

describe('the step record (one StepCall per call, on its own)', () => {
  it('T25: calls keep model order; the unanswered ones are the recorded tail after the answered prefix', () => {
    const calls = createStepCalls()
    const [a, b, c] = ['a', 'b', 'c'].map((id) => calls.add(block(id)))
    expect([a!.index, b!.index, c!.index]).toEqual([0, 1, 2])
    a!.callSeq = 10
    b!.callSeq = 11
    calls.announce()
    calls.announce()
    expect(calls.announced).toBe(2)
    expect(calls.unanswered()).toEqual([
      { callId: 'a', callSeq: 10 },
      { callId: 'b', callSeq: 11 },
    ])
    calls.answer(a!, 12)
    expect(calls.answered).toBe(1)
    expect(a!.resultSeq).toBe(12)
    // c has no tool/call: it is not unanswered, it was never recorded
    expect(calls.unanswered()).toEqual([{ callId: 'b', callSeq: 11 }])
  })

  it('T28–T30: byId finds the first call recorded under an id, also for calls added after a lookup', () => {
    const calls = createStepCalls()
    calls.add(block('x'))
    expect(calls.byId('y')).toBeUndefined()
    const y = calls.add(block('y'))
    calls.add(block('y'))
    expect(calls.byId('y')).toBe(y)
  })

  it('T38: late outcomes are held per call, taken once, and drained in the order they came', () => {
    const calls = createStepCalls()
    const [a, b, c] = ['a', 'b', 'c'].map((id) => calls.add(block(id)))
    calls.hold(c!, outcome('c1'))
    calls.hold(a!, outcome('a1'))
    calls.hold(b!, outcome('b1'))
    // a second outcome for the same call replaces the first and keeps its place
    calls.hold(c!, outcome('c2'))
    expect(calls.takeHeld(b!)).toEqual(outcome('b1'))
    expect(calls.takeHeld(b!)).toBeUndefined()
    expect(calls.drainHeld().map(({ call, outcome }) => [call.block.id, outcome])).toEqual([
      ['c', outcome('c2')],
      ['a', outcome('a1')],
    ])
    expect(calls.drainHeld()).toEqual([])
    expect(a!.heldLate).toBeUndefined()
  })

  it('T33: a nested call counts among its parent until released; the waiter runs at zero; none after the answer', () => {
    const calls = createStepCalls()
    const first = calls.admitNested('p:code:1', 'p', undefined)!
    const second = calls.admitNested('p:code:2', 'p', 5)!
    expect(calls.admitNested('p:code:1', 'p', 9)).toBe(first)
    expect(second.queuedAt).toBe(5)
    const parent = calls.parent('p')
    expect(parent.open).toBe(2)
    let woke = 0
    parent.waiter = () => void woke++
    calls.releaseNested(first)
    calls.releaseNested(first)
    expect([parent.open, woke]).toEqual([1, 0])
    calls.releaseNested(second)
    expect([parent.open, woke, parent.waiter]).toEqual([0, 1, undefined])
    parent.answered = true
    expect(calls.admitNested('p:code:3', 'p', undefined)).toBeUndefined()
    expect(calls.nested('p:code:3')).toBeUndefined()
  })

  it('T33: an outer call of the step is its nested calls’ parent itself (one record per call, no map of parents)', () => {
    const calls = createStepCalls()
    const outer = calls.add(block('run'))
    expect([outer.open, outer.answered, outer.waiter]).toEqual([0, false, undefined])
    const nested = calls.admitNested('run:code:0', 'run', undefined)!
    expect(calls.parent('run')).toBe(outer)
    expect(nested.parent).toBe(outer)
    expect(outer.open).toBe(1)
    calls.releaseNested(nested)
    expect(outer.open).toBe(0)
    outer.answered = true
    expect(calls.admitNested('run:code:1', 'run', undefined)).toBeUndefined()
    // a parent that is no call of the step gets a record of its own, kept for later nested calls
    const stranger = calls.parent('elsewhere')
    expect(calls.parent('elsewhere')).toBe(stranger)
    expect(calls.list).toEqual([outer])
  })

  it('T25/T33: unanswered lists the step tail and the open nested calls together, in log order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ recorded: fc.boolean(), nested: fc.nat(3) }), { minLength: 1, maxLength: 8 }),
        fc.nat(8),
        (shape, answeredCount) => {
          const calls = createStepCalls()
          let seq = 0
          const expected: { callId: string; callSeq: number }[] = []
          // calls are recorded in model order until the first one that is not
          const recordedPrefix = shape.findIndex((c) => !c.recorded)
          const recorded = recordedPrefix === -1 ? shape.length : recordedPrefix
          const answered = Math.min(answeredCount, recorded)
          shape.forEach((entry, index) => {
            const call = calls.add(block(`c${index}`))
            if (index >= recorded) return
            call.callSeq = ++seq
            for (let n = 1; n <= entry.nested; n++) {
              const inner = calls.admitNested(`c${index}:code:${n}`, `c${index}`, undefined)!
              inner.callSeq = ++seq
              // every other nested call has its result
              if (n % 2 === 0) inner.resultSeq = ++seq
              else expected.push({ callId: `c${index}:code:${n}`, callSeq: inner.callSeq })
            }
            if (index < answered) calls.answer(call, ++seq)
            else expected.push({ callId: `c${index}`, callSeq: call.callSeq })
          })
          expect(calls.unanswered()).toEqual(expected.sort((a, b) => a.callSeq - b.callSeq))
        },
      ),
    )
  })

  it("T33: a nested call's outer seq read from its record is byId's, for calls of the step, strangers and calls added later", () => {
    const ID = fc.constantFrom('a', 'b', 'c', 'd')
    type Op =
      | { readonly kind: 'add'; readonly id: string }
      | { readonly kind: 'seq'; readonly at: number; readonly seq: number }
      | { readonly kind: 'nested'; readonly parentId: string }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), id: ID }),
      fc.record({ kind: fc.constant('seq' as const), at: fc.nat(), seq: fc.integer({ min: 1, max: 99 }) }),
      fc.record({ kind: fc.constant('nested' as const), parentId: ID }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 24 }), (ops) => {
        const calls = createStepCalls()
        const admitted: { call: NonNullable<ReturnType<typeof calls.admitNested>>; parentId: string }[] = []
        const check = () => {
          for (const { call, parentId } of admitted)
            expect(calls.outerSeq(call, parentId)).toBe(calls.byId(parentId)?.callSeq)
        }
        ops.forEach((o, n) => {
          if (o.kind === 'add') calls.add(block(o.id))
          else if (o.kind === 'seq') {
            const call = calls.list[o.at % Math.max(1, calls.list.length)]
            if (call !== undefined) call.callSeq = o.seq
          } else {
            const call = calls.admitNested(`${o.parentId}:code:${n}`, o.parentId, undefined)
            if (call !== undefined) admitted.push({ call, parentId: o.parentId })
          }
          check()
        })
      }),
      { numRuns: 500 },
    )
  })
})
