import fc from 'fast-check'
import type { AssistantMessage } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { findUnansweredCalls } from '../src/log/find-unanswered-calls.ts'
import { findUnrecordedCalls } from '../src/log/find-unrecorded-calls.ts'
import type { TurnRecord } from '../src/log/read-last-turn.ts'

// The scans a new turn (and a resume) makes over the whole log: they check each tool/call as they
// pass it, and build a record only of what they report.

interface CallSpec {
  readonly kind: 'call'
  readonly id: string
  readonly turn: number
  readonly step: number
  readonly parentCallId: string | undefined
  readonly modelCallId: string | undefined
}
interface ResultSpec {
  readonly kind: 'result'
  readonly id: string
}

const ids = fc.constantFrom('a', 'b', 'c', 'a#2', 'a:code:0')
const maybeId = fc.option(ids, { nil: undefined })
const spec: fc.Arbitrary<CallSpec | ResultSpec> = fc.oneof(
  fc.record({
    kind: fc.constant('call' as const),
    id: ids,
    turn: fc.integer({ min: 1, max: 2 }),
    step: fc.integer({ min: 1, max: 2 }),
    parentCallId: maybeId,
    modelCallId: maybeId,
  }),
  fc.record({ kind: fc.constant('result' as const), id: ids }),
)

function logOf(specs: readonly (CallSpec | ResultSpec)[]): SessionEvent[] {
  return specs.map((s, i) => {
    const seq = i + 1
    const time = '2026-01-01T00:00:00.000Z'
    if (s.kind === 'result') {
      const message = {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: s.id, content: [{ type: 'text', text: 'ok' }], isError: false },
        ],
      }
      return { seq, time, type: 'tool/result', data: { turn: 1, step: 1, message } }
    }
    const data: Record<string, string | number> = {
      turn: s.turn,
      step: s.step,
      callId: s.id,
      name: 't',
      arguments: '{}',
    }
    if (s.parentCallId !== undefined) data.parentCallId = s.parentCallId
    if (s.modelCallId !== undefined) data.modelCallId = s.modelCallId
    return { seq, time, type: 'tool/call', data }
  }) as SessionEvent[]
}

/**
 * The reference, stated per id rather than as a walk: an id is unanswered when a tool/call of it
 * comes after its last tool/result (or it has none), and the call reported is the first such one.
 */
function unansweredByDefinition(events: readonly SessionEvent[]): number[] {
  const seqs: number[] = []
  const idOf = (e: SessionEvent): string =>
    e.type === 'tool/call'
      ? (e.data as { callId: string }).callId
      : (e.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId
  for (const id of new Set(events.map(idOf))) {
    const own = events.filter((e) => idOf(e) === id)
    const lastResult = own.findLastIndex((e) => e.type === 'tool/result')
    const first = own.slice(lastResult + 1).find((e) => e.type === 'tool/call')
    if (first !== undefined) seqs.push(first.seq)
  }
  return seqs.sort((x, y) => x - y)
}

const call = (seq: number, data: unknown): SessionEvent =>
  ({ seq, time: '2026-01-01T00:00:00.000Z', type: 'tool/call', data }) as SessionEvent

describe('the log scans of a new turn (findUnansweredCalls, findUnrecordedCalls)', () => {
  it('T28: findUnansweredCalls reports, in log order, the first call of each id after its last result, read whole', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 30 }), (specs) => {
        const events = logOf(specs)
        const found = findUnansweredCalls(events)
        expect(found.map((c) => c.seq)).toEqual(unansweredByDefinition(events))
        for (const c of found) {
          const data = events[c.seq - 1]!.data as Record<string, unknown>
          // the record is the call's data as readToolCall reads it, plus its seq
          expect(c).toEqual({ ...data, seq: c.seq })
        }
      }),
    )
  })

  it('T28: findUnrecordedCalls leaves out the message blocks recorded in the last step (under the model id), nested calls never count', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 30 }), (specs) => {
        const events = logOf(specs)
        const lastAssistant: AssistantMessage = {
          role: 'assistant',
          content: ['a', 'b', 'c', 'a#2'].map((id) => ({
            type: 'tool-call',
            id,
            name: 't',
            arguments: '{}',
          })),
        }
        const last = { turn: 2, steps: 1, lastAssistant } as TurnRecord
        const recorded = new Set(
          specs.flatMap((s) =>
            s.kind === 'call' && s.turn === 2 && s.step === 1 && s.parentCallId === undefined
              ? [s.modelCallId ?? s.id]
              : [],
          ),
        )
        expect(findUnrecordedCalls(events, last).map((b) => b.id)).toEqual(
          ['a', 'b', 'c', 'a#2'].filter((id) => !recorded.has(id)),
        )
      }),
    )
  })

  it('T28: a malformed tool/call anywhere in the log is INVALID_SESSION naming its seq and field, from either scan', () => {
    const good = { turn: 1, step: 1, callId: 'a', name: 't', arguments: '{}' }
    const cases: [unknown, RegExp][] = [
      [null, /tool\/call event seq 2: data must be an object, got null/],
      [{ ...good, callId: 7 }, /tool\/call event seq 2: data\.callId must be a string, got the number 7/],
      [{ ...good, arguments: {} }, /tool\/call event seq 2: data\.arguments must be a string/],
      [
        { ...good, turn: -1 },
        /tool\/call event seq 2: data\.turn must be a non-negative integer, got the number -1/,
      ],
      [{ ...good, step: 'x' }, /tool\/call event seq 2: data\.step must be a non-negative integer/],
    ]
    const last = {
      turn: 1,
      steps: 1,
      lastAssistant: { role: 'assistant', content: [] },
    } as unknown as TurnRecord
    for (const [data, message] of cases) {
      const events = [call(1, good), call(2, data)]
      for (const scan of [() => findUnansweredCalls(events), () => findUnrecordedCalls(events, last)]) {
        let thrown: unknown
        try {
          scan()
        } catch (error) {
          thrown = error
        }
        expect((thrown as { code?: string }).code).toBe('INVALID_SESSION')
        expect((thrown as Error).message).toMatch(message)
      }
    }
  })
})
