import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { logViewsArbitrary, readOutcome } from './support/log-views.ts'
import type { AssistantMessage } from '@deepseek-ai/dsh-llm'
import { findUnansweredCalls } from '../src/log/find-unanswered-calls.ts'
import { findUnrecordedCalls } from '../src/log/find-unrecorded-calls.ts'
import type { TurnRecord } from '../src/log/read-last-turn.ts'
import { sessionCallIndex, sessionGrants, unrecordedCount } from '../src/log/session-call-index.ts'
import { readSessionGrants } from '../src/log/session-grants.ts'
import { ZERO_USAGE } from '../src/log/session-records.ts'

// What a new turn asks of the log about its calls, read on from turn to turn (`sessionCallIndex`),
// against the full scans of the same log (`findUnansweredCalls`, `findUnrecordedCalls`), the oracle:
// generated logs of calls (nested, renamed, repeated ids, broken), results (broken too) and other
// events, read at growing lengths, with the log swapped under the same session for one sharing a
// prefix of its events; every read must give the same counts or the same error.

const CALL_ID = fc.constantFrom('a', 'b', 'c', 'a#2')
const SMALL = fc.integer({ min: 1, max: 2 })

type Draft = { readonly type: string; readonly data: unknown }

const call = fc
  .record({
    callId: CALL_ID,
    turn: SMALL,
    step: SMALL,
    parent: fc.option(CALL_ID, { nil: undefined }),
    model: fc.option(CALL_ID, { nil: undefined }),
  })
  .map(({ callId, turn, step, parent, model }): Draft => ({
    type: 'tool/call',
    data: {
      turn,
      step,
      callId,
      name: 'echo',
      arguments: '{}',
      ...(parent === undefined ? {} : { parentCallId: parent }),
      ...(model === undefined ? {} : { modelCallId: model }),
    },
  }))
const result = CALL_ID.map((callId): Draft => ({
  type: 'tool/result',
  data: {
    turn: 1,
    step: 1,
    message: {
      role: 'tool',
      content: [{ type: 'tool-result', callId, isError: false, content: [{ type: 'text', text: '1' }] }],
    },
  },
}))
const other = fc.constantFrom<Draft>(
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'user/message', data: { message: { role: 'user', content: [] } } },
)
/** A call without its name, a result answering no call: the scans throw INVALID_SESSION at them. */
const broken = fc.constantFrom<Draft>(
  { type: 'tool/call', data: { turn: 1, step: 1, callId: 'a', arguments: '{}' } },
  { type: 'tool/result', data: { message: { role: 'tool', content: [] } } },
)
const DRAFT = fc.oneof(
  { arbitrary: call, weight: 5 },
  { arbitrary: result, weight: 4 },
  { arbitrary: other, weight: 1 },
  { arbitrary: broken, weight: 1 },
)

/** The last turn a new turn would read: its last assistant message calling `ids` at `turn`/`steps`. */
const LAST = fc.option(
  fc.record({ turn: SMALL, steps: SMALL, ids: fc.uniqueArray(CALL_ID, { maxLength: 3 }) }),
  { nil: undefined },
)

function turnRecord(
  last: { turn: number; steps: number; ids: string[] } | undefined,
): TurnRecord | undefined {
  if (last === undefined) return undefined
  const message: AssistantMessage = {
    role: 'assistant',
    content: last.ids.map((id) => ({ type: 'tool-call', id, name: 'echo', arguments: '{}' })),
  }
  return {
    turn: last.turn,
    end: undefined,
    steps: last.steps,
    lastAssistant: message,
    lastAssistantSeq: 1,
    usage: ZERO_USAGE,
  }
}

describe('the calls a new turn checks, read on from turn to turn', () => {
  it('T30: the unanswered and unrecorded counts equal the full scans at every length, across a log swapped for one sharing a prefix, and after a read that threw', () => {
    fc.assert(
      fc.property(
        logViewsArbitrary(DRAFT, { log: 30, tail: 12, reads: 8 }),
        fc.array(LAST, { minLength: 8, maxLength: 8 }),
        (views, lasts) => {
          const session = {}
          views.forEach((view, i) => {
            const last = turnRecord(lasts[i])
            expect(
              readOutcome(() => {
                const index = sessionCallIndex(session, view)
                return [index.open.size, unrecordedCount(index, last)]
              }),
            ).toEqual(
              readOutcome(() => [findUnansweredCalls(view).length, findUnrecordedCalls(view, last).length]),
            )
          })
        },
      ),
      { numRuns: 400 },
    )
  })
})

/** Approval requests and answers (`session` or `once`, per tool or per arguments) citing any seq. */
const APPROVAL = fc.oneof(
  fc
    .record({
      name: fc.constantFrom('echo', 'rm'),
      args: fc.constantFrom('{"b":1,"a":2}', '{"a":2,"b":1}', '{x'),
    })
    .map(({ name, args }) => ({
      type: 'approval/request',
      data: { name, arguments: args },
      cites: undefined,
    })),
  fc
    .record({
      answer: fc.constantFrom('session', 'once'),
      scope: fc.constantFrom('tool', 'arguments'),
      cites: fc.integer({ min: 1, max: 20 }),
    })
    .map(({ answer, scope, cites }) => ({ type: 'approval/answer', data: { answer, scope }, cites })),
  fc.constant({ type: 'approval/answer', data: null, cites: 1 }),
)

describe('the session grants a new turn reads, read on from turn to turn', () => {
  it('durable approvals: the session grants equal the full read of the log at every length and across a log swapped for one sharing a prefix', () => {
    fc.assert(
      fc.property(logViewsArbitrary(APPROVAL, { log: 20, tail: 8, reads: 6 }), (views) => {
        const session = {}
        views.forEach((view) => {
          expect(sessionGrants(session, view)).toEqual(readSessionGrants(view))
        })
      }),
      { numRuns: 300 },
    )
  })
})
