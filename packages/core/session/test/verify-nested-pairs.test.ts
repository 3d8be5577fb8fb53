import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage, type JsonValue } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'

// Nested calls (Code Mode): a run_code program's tool calls are recorded as their own pairs, each
// naming the outer call in `data.parentCallId` and citing its tool/call, all before its result.

type Op =
  | {
      readonly op: 'call'
      readonly callId: string
      readonly parent?: string
      readonly cite?: 'none' | number
    }
  | { readonly op: 'result'; readonly callId: string; readonly turn?: number }

/** Events from ops: seq = position + 1; a nested call cites its parent's seq unless told otherwise. */
function log(ops: readonly Op[], step = { turn: 1, step: 1 }): SessionEvent[] {
  const seqOf = new Map<string, number>()
  return ops.map((entry, i): SessionEvent => {
    const seq = i + 1
    if (entry.op === 'call') {
      if (!seqOf.has(entry.callId)) seqOf.set(entry.callId, seq)
      const data = {
        ...step,
        callId: entry.callId,
        name: 'tool',
        arguments: '{}',
        ...(entry.parent === undefined ? {} : { parentCallId: entry.parent }),
      }
      const cite =
        entry.cite === 'none'
          ? undefined
          : (entry.cite ?? (entry.parent === undefined ? undefined : (seqOf.get(entry.parent) ?? 0)))
      return {
        seq,
        type: 'tool/call',
        time: 't',
        data,
        ...(cite === undefined ? {} : { sourceEventSeqs: [cite] }),
      }
    }
    const message = createToolResultMessage({ callId: entry.callId, content: 'ok', isError: false })
    const data = { ...step, turn: entry.turn ?? step.turn, message } as unknown as JsonValue
    return {
      seq,
      type: 'tool/result',
      time: 't',
      data,
      surfaceOp: 'append',
      sourceEventSeqs: [seqOf.get(entry.callId) ?? 0],
    }
  })
}

const kinds = (events: readonly SessionEvent[]) =>
  verifyToolPairs(events).problems.map((problem) => `${problem.kind} ${problem.callId ?? ''} @${problem.seq}`)

// Ops by name, so each fixture reads as the log it stands for.
const call = (callId: string): Op => ({ op: 'call', callId })
/** Nested call `index` of `parent` (`<parent>:code:<index>`), citing its parent's tool/call unless told. */
const nested = (parent: string, index: number, cite?: 'none' | number): Op => ({
  op: 'call',
  callId: `${parent}:code:${index}`,
  parent,
  ...(cite === undefined ? {} : { cite }),
})
const result = (callId: string): Op => ({ op: 'result', callId })
/** The problems `verifyToolPairs` reports for the log of `ops`. */
const problemsOf = (...ops: Op[]) => kinds(log(ops))

describe('verifyToolPairs: nested pairs (T30, T33)', () => {
  it('T30: nested pairs inside their parent, in program order, verify clean', () => {
    expect(
      problemsOf(
        call('rc'),
        nested('rc', 0),
        nested('rc', 1),
        result('rc:code:0'),
        result('rc:code:1'),
        nested('rc', 2),
        result('rc:code:2'),
        result('rc'),
        call('next'),
        result('next'),
      ),
    ).toEqual([])
  })

  it('T30: a nested call must name a parent called before it, still unanswered, and cite its tool/call', () => {
    expect(problemsOf(nested('x', 0), result('x:code:0'), call('x'), result('x'))).toEqual([
      'unknown-parent x:code:0 @1',
    ])
    expect(problemsOf(call('rc'), result('rc'), nested('rc', 0), result('rc:code:0'))).toEqual([
      'nested-after-parent rc:code:0 @3',
    ])
    expect(
      problemsOf(
        call('rc'),
        nested('rc', 0, 'none'),
        nested('rc', 1, 2),
        result('rc:code:0'),
        result('rc:code:1'),
        result('rc'),
      ),
    ).toEqual(['wrong-source rc:code:0 @2', 'wrong-source rc:code:1 @3'])
  })

  it('T30: a parent answered before its nested calls, and nested results out of program order, are reported', () => {
    expect(problemsOf(call('rc'), nested('rc', 0), result('rc'), result('rc:code:0'))).toEqual([
      'parent-answered-early rc @3',
    ])
    expect(
      problemsOf(
        call('rc'),
        nested('rc', 0),
        nested('rc', 1),
        result('rc:code:1'),
        result('rc:code:0'),
        result('rc'),
      ),
    ).toEqual(['out-of-order-result rc:code:0 @5'])
    expect(problemsOf(call('rc'), nested('rc', 0), result('rc'))).toEqual([
      'unanswered-call rc:code:0 @2',
      'parent-answered-early rc @3',
    ])
  })

  it('T30: nested calls are ordered among their parent’s calls, not the step’s; their data is checked', () => {
    // two parallel outer calls, each with nested calls: results interleave across parents freely
    expect(
      problemsOf(
        call('a'),
        call('b'),
        nested('b', 0),
        nested('a', 0),
        result('b:code:0'),
        result('a:code:0'),
        result('a'),
        result('b'),
      ),
    ).toEqual([])
    const badParent = log([call('rc')])
    ;(badParent[0]!.data as Record<string, unknown>).parentCallId = 7
    expect(verifyToolPairs(badParent).problems[0]?.message).toBe(
      'tool/call seq 1: data.parentCallId must be a non-empty string when present, got the number 7',
    )
  })

  it('T30: a nested call in another step than its parent is a step mismatch', () => {
    const events = log([call('rc')])
    const session = createMemorySession()
    const outer = session.append('tool/call', events[0]!.data)
    session.append(
      'tool/call',
      { turn: 1, step: 2, callId: 'rc:code:0', name: 'tool', arguments: '{}', parentCallId: 'rc' },
      { sourceEventSeqs: [outer.seq] },
    )
    expect(kinds(session.events())).toEqual([
      'unanswered-call rc @1',
      'step-overlap rc:code:0 @2',
      'step-mismatch rc:code:0 @2',
      'unanswered-call rc:code:0 @2',
    ])
  })

  it('T30 (property): any program-ordered nesting verifies clean; moving one nested result past its parent is caught', () => {
    // per outer call: how many nested calls, and how their calls and results interleave
    const outer = fc.array(fc.tuple(fc.nat(4), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })), {
      minLength: 1,
      maxLength: 4,
    })
    fc.assert(
      fc.property(outer, fc.nat(), (shapes, pick) => {
        const ops: Op[] = []
        shapes.forEach(([count, choices], o) => {
          const parent = `o${o}`
          ops.push(call(parent))
          let called = 0
          let answered = 0
          let choice = 0
          while (answered < count) {
            const callNext = called < count && (answered === called || choices[choice++ % 8] === true)
            if (callNext) ops.push(nested(parent, called++))
            else ops.push(result(`${parent}:code:${answered++}`))
          }
          ops.push(result(parent))
        })
        expect(kinds(log(ops))).toEqual([])
        const nestedResults = ops.flatMap((op, i) =>
          op.op === 'result' && op.callId.includes(':') ? [i] : [],
        )
        if (nestedResults.length === 0) return
        const at = nestedResults[pick % nestedResults.length]!
        const [moved] = ops.splice(at, 1) as [Op & { op: 'result' }]
        const parent = moved.callId.slice(0, moved.callId.indexOf(':'))
        const parentResult = ops.findIndex((op) => op.op === 'result' && op.callId === parent)
        ops.splice(parentResult + 1, 0, moved)
        expect(verifyToolPairs(log(ops)).problems.map((p) => [p.kind, p.callId])).toContainEqual([
          'parent-answered-early',
          parent,
        ])
      }),
    )
  })
})
