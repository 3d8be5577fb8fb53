import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  SessionError,
  verifyToolPairs,
  type SessionEvent,
  type ToolPairProblemKind,
} from '@deepseek-ai/dsh-session'
import { materialize, wellFormedLog, type Entry } from './support/tool-log.ts'

type Corruption = (entries: Entry[], pick: number) => ToolPairProblemKind | undefined

const indexesOf = (entries: readonly Entry[], kind: Entry['kind']): number[] =>
  entries.flatMap((entry, i) => (entry.kind === kind ? [i] : []))

const callIndex = (entries: readonly Entry[], callId: string): number =>
  entries.findIndex((entry) => entry.kind === 'call' && entry.callId === callId)

/** Each corruption changes a well-formed log in place and names the problem it must cause. */
const CORRUPTIONS: Record<string, Corruption> = {
  'drop a result': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    entries.splice(results[pick % results.length]!, 1)
    return 'unanswered-call'
  },
  'drop a call': (entries, pick) => {
    const calls = indexesOf(entries, 'call')
    if (calls.length === 0) return undefined
    entries.splice(calls[pick % calls.length]!, 1)
    return 'orphan-result'
  },
  'repeat a call': (entries, pick) => {
    const calls = indexesOf(entries, 'call')
    if (calls.length === 0) return undefined
    const at = calls[pick % calls.length]!
    entries.splice(at + 1 + (pick % (entries.length - at)), 0, { ...entries[at]! })
    return 'duplicate-call'
  },
  'repeat a result': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    const at = results[pick % results.length]!
    entries.splice(at + 1 + (pick % (entries.length - at)), 0, { ...entries[at]! })
    return 'duplicate-result'
  },
  'move a result before its call': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    const [result] = entries.splice(results[pick % results.length]!, 1) as [Entry & { kind: 'result' }]
    entries.splice(callIndex(entries, result.callId), 0, { ...result, cite: [] })
    return 'result-before-call'
  },
  'cite the wrong source': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    const at = results[pick % results.length]!
    const result = entries[at] as Entry & { kind: 'result' }
    // One event that is not its call: another call when there is one, else the result itself.
    const other = entries.find((entry) => entry.kind === 'call' && entry.callId !== result.callId)
    const options = ['omit', [], [1, 2], other ?? [at + 1]] as const
    entries[at] = { ...result, cite: options[pick % 4]! }
    // [1, 2] cites two events, so it is wrong whatever seq the call has.
    return 'wrong-source'
  },
  'answer in another step': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    const at = results[pick % results.length]!
    const result = entries[at] as Entry & { kind: 'result' }
    entries[at] = { ...result, step: result.step + 10 }
    return 'step-mismatch'
  },
  'answer a step out of order': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    const pairs = results.flatMap((a) =>
      results.flatMap((b) => {
        const ra = entries[a] as Entry & { kind: 'result' }
        const rb = entries[b] as Entry & { kind: 'result' }
        return a < b && ra.turn === rb.turn && ra.step === rb.step ? [[a, b] as const] : []
      }),
    )
    if (pairs.length === 0) return undefined
    const [a, b] = pairs[pick % pairs.length]!
    // The earlier call's result moves to just after the later call's result.
    const [moved] = entries.splice(a, 1)
    entries.splice(b, 0, moved!)
    return 'out-of-order-result'
  },
  'start the next step early': (entries) => {
    const calls = indexesOf(entries, 'call').map((i) => entries[i] as Entry & { kind: 'call' })
    for (const call of calls) {
      const next = calls.find(
        (other) => other.turn > call.turn || (other.turn === call.turn && other.step > call.step),
      )
      if (next === undefined) continue
      // The last result of `call`'s step moves to just after the next step's first call.
      const sameStep = indexesOf(entries, 'result').filter((i) => {
        const result = entries[i] as Entry & { kind: 'result' }
        return result.turn === call.turn && result.step === call.step
      })
      const [moved] = entries.splice(sameStep[sameStep.length - 1]!, 1)
      entries.splice(callIndex(entries, next.callId) + 1, 0, moved!)
      return 'step-overlap'
    }
    return undefined
  },
  'malform a result': (entries, pick) => {
    const results = indexesOf(entries, 'result')
    if (results.length === 0) return undefined
    const at = results[pick % results.length]!
    entries[at] = { ...(entries[at] as Entry & { kind: 'result' }), malformed: true }
    return 'malformed-event'
  },
}

describe('verifyToolPairs (T30)', () => {
  it('T30: finds no problem in any well-formed log', () => {
    fc.assert(
      fc.property(wellFormedLog, (entries) => {
        expect(verifyToolPairs(materialize(entries))).toEqual({ ok: true, problems: [] })
      }),
      { numRuns: 300 },
    )
  })

  it('T30: finds the injected problem in a corrupted log', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(
        wellFormedLog,
        fc.constantFrom(...Object.keys(CORRUPTIONS)),
        fc.nat(),
        (entries, name, pick) => {
          const corrupted = [...entries]
          const expected = CORRUPTIONS[name]!(corrupted, pick)
          fc.pre(expected !== undefined)
          seen.add(name)
          const report = verifyToolPairs(materialize(corrupted))
          expect(report.ok).toBe(false)
          expect(report.problems.map((problem) => problem.kind)).toContain(expected)
        },
      ),
      { numRuns: 1000 },
    )
    expect([...seen].sort()).toEqual(Object.keys(CORRUPTIONS).sort())
  })

  it('T30: reports every problem with its seq and callId, ordered by seq', () => {
    const events = materialize([
      { kind: 'call', turn: 1, step: 1, callId: 'a' },
      { kind: 'call', turn: 1, step: 1, callId: 'a' },
      { kind: 'result', turn: 1, step: 1, callId: 'ghost', cite: [] },
      { kind: 'call', turn: 1, step: 1, callId: 'b' },
      { kind: 'result', turn: 1, step: 1, callId: 'a' },
      { kind: 'result', turn: 1, step: 1, callId: 'a' },
    ])
    const report = verifyToolPairs(events)
    expect(report.ok).toBe(false)
    expect(report.problems).toEqual([
      { kind: 'duplicate-call', seq: 2, callId: 'a', message: 'tool/call seq 2 reuses callId "a" of seq 1' },
      {
        kind: 'orphan-result',
        seq: 3,
        callId: 'ghost',
        message: 'tool/result seq 3 answers "ghost", which was never called',
      },
      {
        kind: 'unanswered-call',
        seq: 4,
        callId: 'b',
        message: 'tool/call seq 4 ("b") never got a tool/result',
      },
      {
        kind: 'duplicate-result',
        seq: 6,
        callId: 'a',
        message: 'tool/result seq 6 answers "a" (seq 1) a second time',
      },
    ])
    expect(Object.isFrozen(report.problems)).toBe(true)
  })

  it('T30: a result citing one event that is not its call is wrong-source', () => {
    const a = { kind: 'call', turn: 1, step: 1, callId: 'a' } as const
    const report = verifyToolPairs(
      materialize([
        a,
        { kind: 'call', turn: 1, step: 1, callId: 'b' },
        { kind: 'result', turn: 1, step: 1, callId: 'a' },
        { kind: 'result', turn: 1, step: 1, callId: 'b', cite: a },
      ]),
    )
    expect(report.problems).toEqual([
      {
        kind: 'wrong-source',
        seq: 4,
        callId: 'b',
        message: 'tool/result seq 4 for "b" has sourceEventSeqs [1]; expected [2]',
      },
    ])
  })

  it('T30: names each ordering problem precisely', () => {
    const early = verifyToolPairs(
      materialize([
        { kind: 'result', turn: 1, step: 1, callId: 'x', cite: [] },
        { kind: 'call', turn: 1, step: 1, callId: 'x' },
      ]),
    )
    expect(early.problems.map((p) => [p.kind, p.seq])).toEqual([
      ['result-before-call', 1],
      ['unanswered-call', 2],
    ])
    const overlap = verifyToolPairs(
      materialize([
        { kind: 'call', turn: 1, step: 1, callId: 'a' },
        { kind: 'call', turn: 1, step: 2, callId: 'b' },
        { kind: 'result', turn: 1, step: 1, callId: 'a' },
        { kind: 'result', turn: 1, step: 2, callId: 'b' },
        { kind: 'call', turn: 1, step: 1, callId: 'late' },
        { kind: 'result', turn: 1, step: 1, callId: 'late' },
      ]),
    )
    expect(overlap.problems.map((p) => [p.kind, p.seq])).toEqual([
      ['step-overlap', 2],
      ['step-overlap', 5],
    ])
    expect(overlap.problems[0]!.message).toBe(
      'tool/call seq 2 ("b", turn 1 step 2) starts while turn 1 step 1 still waits for the result of "a" (seq 1)',
    )
    const order = verifyToolPairs(
      materialize([
        { kind: 'call', turn: 2, step: 1, callId: 'a' },
        { kind: 'call', turn: 2, step: 1, callId: 'b' },
        { kind: 'result', turn: 2, step: 1, callId: 'b' },
        { kind: 'result', turn: 2, step: 3, callId: 'a' },
      ]),
    )
    expect(order.problems.map((p) => [p.kind, p.seq, p.callId])).toEqual([
      ['step-mismatch', 4, 'a'],
      ['out-of-order-result', 4, 'a'],
    ])
  })

  it('T30: reports malformed tool events and non-events, ignores other types, and rejects a non-array', () => {
    const events = [
      {
        seq: 1,
        type: 'tool/call',
        time: 't',
        data: { turn: 1, step: 1, callId: '', name: 'x', arguments: '{}' },
      },
      { seq: 2, type: 'tool/result', time: 't', data: 'nope' },
      { seq: 3, type: 'note', time: 't', data: { anything: true } },
      null,
    ] as unknown as SessionEvent[]
    const report = verifyToolPairs(events)
    expect(report.problems.map((p) => [p.kind, p.seq])).toEqual([
      ['malformed-event', 0],
      ['malformed-event', 1],
      ['malformed-event', 2],
    ])
    expect(report.problems[1]!.message).toBe(
      'tool/call seq 1: data.callId must be a non-empty string, got the string ""',
    )
    expect(() => verifyToolPairs({} as never)).toThrowError(SessionError)
  })

  it('T28/T29: a log written through a session the documented way verifies clean', () => {
    const session = createMemorySession()
    for (const step of [1, 2]) {
      const calls = ['a', 'b'].map((name) =>
        session.append('tool/call', { turn: 1, step, callId: `${name}${step}`, name, arguments: '{}' }),
      )
      for (const call of calls) {
        const callId = (call.data as { callId: string }).callId
        session.append(
          'tool/result',
          { turn: 1, step, message: createToolResultMessage({ callId, content: 'done', isError: false }) },
          { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
        )
      }
    }
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})
