import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { eventsOf, logViewsArbitrary, readOutcome } from './support/log-views.ts'
import { historyItemsFromSession } from '../src/log/history-items.ts'
import { fitToolOutputs } from '../src/log/fit-tool-output.ts'
import { sessionFittedHistory, sessionHistoryItems } from '../src/log/session-history.ts'

// The history a loop builds on from step to step (`sessionHistoryItems`) against the full rebuild of
// the same log (`historyItemsFromSession`), the oracle: generated logs of messages, calls (nested,
// renamed, repaired, replayed), results, compactions and broken events, read at growing lengths, with
// the log swapped under the same session for one that shares a prefix of its events (a log repaired
// or rewritten), every read must give the same items or the same error.

const CALL_ID = fc.constantFrom('a', 'b', 'c', 'a#2', 'a:code:0')
const TEXT = fc.constantFrom('', 'x', 'ok', 'long text')

type Draft = { readonly type: string; readonly data: unknown }

const user = TEXT.map((text): Draft => ({
  type: 'user/message',
  data: { message: { role: 'user', content: [{ type: 'text', text }] } },
}))
const assistant = fc.array(CALL_ID, { maxLength: 3 }).map((ids): Draft => ({
  type: 'assistant/message',
  data: {
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'thinking' },
        ...ids.map((id) => ({ type: 'tool-call', id, name: 'echo', arguments: '{"x":1}' })),
      ],
    },
  },
}))
const call = fc
  .record({
    callId: CALL_ID,
    parent: fc.option(CALL_ID, { nil: undefined }),
    model: fc.option(CALL_ID, { nil: undefined }),
    wire: fc.constantFrom('none', 'repaired', 'replay'),
  })
  .map(({ callId, parent, model, wire }): Draft => ({
    type: 'tool/call',
    data: {
      turn: 1,
      step: 1,
      callId,
      name: 'echo',
      arguments: '{x',
      ...(parent === undefined ? {} : { parentCallId: parent }),
      ...(model === undefined ? {} : { modelCallId: model }),
      ...(wire === 'repaired' ? { repaired: { name: 'echo2', arguments: '{"x":2}' } } : {}),
      ...(wire === 'replay' ? { replayArguments: '{}' } : {}),
    },
  }))
const result = fc.tuple(CALL_ID, TEXT).map(([callId, text]): Draft => ({
  type: 'tool/result',
  data: {
    message: {
      role: 'tool',
      content: [{ type: 'tool-result', callId, isError: false, content: [{ type: 'text', text }] }],
    },
  },
}))
/** Seqs refer to events by position; a seq no event has is fine (the rebuild ignores it too). */
const compaction = fc
  .record({
    dropped: fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 3 }),
    replaced: fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), CALL_ID, TEXT), { maxLength: 2 }),
  })
  .map(({ dropped, replaced }): Draft => ({
    type: 'history/compaction',
    data: {
      turn: 1,
      step: 1,
      dropped,
      replaced: replaced.map(([seq, callId, text]) => ({
        seq,
        message: {
          role: 'tool',
          content: [{ type: 'tool-result', callId, isError: false, content: [{ type: 'text', text }] }],
        },
      })),
      estimateTokens: 1,
    },
  }))
const other = fc.constantFrom<Draft>(
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'turn/end', data: { turn: 1, reason: 'done', steps: 1 } },
)
/** A message event without its message: the rebuild throws INVALID_SESSION at it. */
const broken = fc.constantFrom<Draft>(
  { type: 'user/message', data: {} },
  { type: 'history/compaction', data: { dropped: 1 } },
)

const DRAFT = fc.oneof(
  { arbitrary: user, weight: 3 },
  { arbitrary: assistant, weight: 3 },
  { arbitrary: call, weight: 4 },
  { arbitrary: result, weight: 4 },
  { arbitrary: compaction, weight: 1 },
  { arbitrary: other, weight: 1 },
  { arbitrary: broken, weight: 1 },
)

describe('the history a loop builds on from step to step', () => {
  it('T57/T28/T55: equals the full rebuild of the log at every length, across a log swapped for one sharing a prefix, and after a read that threw', () => {
    fc.assert(
      fc.property(logViewsArbitrary(DRAFT, { log: 30, tail: 12, reads: 8 }), (views) => {
        // reads of a log, one of them of another log whose first events are the very same objects
        const session = {}
        for (const view of views) {
          expect(readOutcome(() => sessionHistoryItems(session, view))).toEqual(
            readOutcome(() => historyItemsFromSession(view)),
          )
        }
      }),
      { numRuns: 400 },
    )
  })

  it('T56: what the model is shown equals the full fit of the full rebuild, whether or not a result is long enough to cut', () => {
    const policy = fc.record({
      maxChars: fc.integer({ min: 0, max: 10 }),
      headShare: fc.constantFrom(0.5, 0.6),
      toModelContent: fc.option(
        fc.constant(({ message }: { message: { content: readonly { content: readonly unknown[] }[] } }) => [
          { type: 'text' as const, text: `seen ${message.content[0]!.content.length}` },
        ]),
        { nil: undefined },
      ),
    })
    fc.assert(
      fc.property(
        logViewsArbitrary(DRAFT, { log: 30, tail: 12, reads: 8 }),
        policy,
        fc.boolean(),
        (views, toolOutput, readable) => {
          const session = {}
          const given = toolOutput as Parameters<typeof fitToolOutputs>[1]
          for (const view of views) {
            expect(readOutcome(() => sessionFittedHistory(session, view, given, readable))).toEqual(
              readOutcome(() => fitToolOutputs(historyItemsFromSession(view), given, readable)),
            )
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  it('T56: a compaction that replaced a short result with a long one is cut, though no result read was long', () => {
    // The generated logs above meet this case rarely (a replacement must land on a result's seq):
    // here it is every time. Every result the log holds is short; the compaction's text is not.
    const toolMessage = (text: string) => ({
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'a', isError: false, content: [{ type: 'text', text }] }],
    })
    const drafts: Draft[] = [
      { type: 'user/message', data: { message: { role: 'user', content: [{ type: 'text', text: 'go' }] } } },
      {
        type: 'assistant/message',
        data: {
          message: {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'a', name: 'echo', arguments: '{"x":1}' }],
          },
        },
      },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'a', name: 'echo', arguments: '{"x":1}' } },
      { type: 'tool/result', data: { message: toolMessage('ok') } },
      {
        type: 'history/compaction',
        data: {
          turn: 1,
          step: 1,
          dropped: [],
          replaced: [{ seq: 4, message: toolMessage('a summary far longer than the limit') }],
          estimateTokens: 1,
        },
      },
    ]
    const log = eventsOf(drafts, 1)
    const policy = { maxChars: 10, headShare: 0.5 } as Parameters<typeof fitToolOutputs>[1]
    const fitted = sessionFittedHistory({}, log, policy, true)
    expect(fitted).toEqual(fitToolOutputs(historyItemsFromSession(log), policy, true))
    // the cut happened: the replaced result is no longer its whole text
    expect(JSON.stringify(fitted)).not.toContain('a summary far longer than the limit')
  })

  it('T57: a log handed as an array its owner keeps changing (not frozen) is read on from what was read, never from the array as it is later', () => {
    const message = (text: string): Draft => ({
      type: 'user/message',
      data: { message: { role: 'user', content: [{ type: 'text', text }] } },
    })
    const log = eventsOf([message('a'), message('b'), message('c'), message('d')], 1)
    // a session whose events() is its live array: it grows after each read
    const live: SessionEvent[] = [log[0]!, log[1]!]
    const session = {}
    expect(sessionHistoryItems(session, live)).toHaveLength(2)
    live.push(log[2]!, log[3]!)
    // the same array object, now longer: its new events are read too
    expect(sessionHistoryItems(session, live)).toEqual(historyItemsFromSession(live))
    expect(sessionHistoryItems(session, live)).toHaveLength(4)
  })

  it('T57: a read after appends reads only what was appended (the earlier items are the same objects)', () => {
    const drafts: Draft[] = [
      { type: 'user/message', data: { message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } } },
      { type: 'turn/start', data: { turn: 1 } },
    ]
    const log = eventsOf(drafts, 1)
    const session = {}
    const first = sessionHistoryItems(session, log.slice(0, 1))
    const second = sessionHistoryItems(session, log)
    expect(second).toHaveLength(1)
    // the same item object: built once, not rebuilt
    expect(second[0]).toBe(first[0])
    // each read gets an array of its own: the caller may keep or change it
    expect(second).not.toBe(first)
    // and frozen items: a prepareHistory hook given one cannot change what the next step is sent
    expect(Object.isFrozen(second[0])).toBe(true)
    second.pop()
    expect(sessionHistoryItems(session, log)).toHaveLength(1)
  })
})
