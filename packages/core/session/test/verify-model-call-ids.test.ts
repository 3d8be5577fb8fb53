import { describe, expect, it } from 'vitest'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'

// A model that repeats a call id (`d` in step 1 and again in step 2): the loop records the second
// call under an id unique in the session (`d#2`) and keeps the model's as `modelCallId`, which is
// what the call is matched with in its assistant message (T28, T30, T40).

interface Call {
  readonly callId: string
  readonly modelCallId?: unknown
  readonly parentCallId?: string
  /** Skip the tool/result. */
  readonly unanswered?: boolean
}

/** One step per entry: its assistant message (the model's ids), then each call and its result. */
function log(steps: readonly { readonly blocks: readonly string[]; readonly calls: readonly Call[] }[]) {
  const session = createMemorySession()
  steps.forEach(({ blocks, calls }, s) => {
    const step = s + 1
    const message = session.append('assistant/message', {
      turn: 1,
      step,
      message: {
        role: 'assistant',
        content: blocks.map((id) => ({ type: 'tool-call', id, name: 'echo', arguments: '{}' })),
      },
    })
    const seqs = new Map<string, number>()
    for (const call of calls) {
      const parent = call.parentCallId === undefined ? undefined : seqs.get(call.parentCallId)
      const event = session.append(
        'tool/call',
        {
          turn: 1,
          step,
          callId: call.callId,
          ...(call.modelCallId === undefined ? {} : { modelCallId: call.modelCallId }),
          ...(call.parentCallId === undefined ? {} : { parentCallId: call.parentCallId }),
          name: 'echo',
          arguments: '{}',
        },
        { sourceEventSeqs: [parent ?? message.seq] },
      )
      seqs.set(call.callId, event.seq)
    }
    for (const call of [...calls].reverse().filter((c) => c.parentCallId !== undefined))
      answer(session, step, call.callId, seqs.get(call.callId)!)
    for (const call of calls.filter((c) => c.parentCallId === undefined && c.unanswered !== true))
      answer(session, step, call.callId, seqs.get(call.callId)!)
  })
  return session.events()
}

function answer(
  session: ReturnType<typeof createMemorySession>,
  step: number,
  callId: string,
  callSeq: number,
) {
  session.append(
    'tool/result',
    {
      turn: 1,
      step,
      message: createToolResultMessage({ callId, content: [{ type: 'text', text: 'ok' }], isError: false }),
    },
    { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
  )
}

const kinds = (events: readonly SessionEvent[]) =>
  verifyToolPairs(events).problems.map((p) => [p.kind, p.callId, p.message])

describe('the replay check and the model’s call ids (T30)', () => {
  it('T30: a call recorded under another id than the model’s (modelCallId) pairs by callId and matches its block by the model’s id', () => {
    const events = log([
      { blocks: ['d'], calls: [{ callId: 'd' }] },
      { blocks: ['d', 'e'], calls: [{ callId: 'd#2', modelCallId: 'd' }, { callId: 'e' }] },
    ])
    expect(kinds(events)).toEqual([])
  })

  it('T30: without the loop’s renaming, a repeated id is a duplicate, and the later message’s call counts as unrecorded', () => {
    const events = log([
      { blocks: ['d'], calls: [{ callId: 'd' }] },
      { blocks: ['d'], calls: [{ callId: 'd' }] },
    ])
    expect(kinds(events).map(([kind, callId]) => [kind, callId])).toEqual([
      // an id recorded in an earlier step does not record this message's block (reported on the message)
      ['unrecorded-call', 'd'],
      ['duplicate-call', 'd'],
      ['duplicate-result', 'd'],
    ])
  })

  it('T30: a modelCallId naming no block of its message, or a block another tool/call recorded, is reported', () => {
    expect(
      kinds(log([{ blocks: ['d'], calls: [{ callId: 'd' }, { callId: 'x#2', modelCallId: 'x' }] }])).map(
        (p) => p[0],
      ),
    ).toEqual(['call-not-in-message'])
    const twice = kinds(
      log([{ blocks: ['d'], calls: [{ callId: 'd' }, { callId: 'd#2', modelCallId: 'd' }] }]),
    )
    expect(twice).toEqual([
      [
        'duplicate-call',
        'd#2',
        'tool/call seq 3 ("d#2", the model\'s "d") records the tool call "d" of the assistant/message of turn 1 step 1 (seq 1), which "d" already recorded',
      ],
    ])
  })

  it('T30: a modelCallId that is not a non-empty string, or sits on a nested call, is a malformed event', () => {
    expect(
      kinds(log([{ blocks: ['d'], calls: [{ callId: 'd#2', modelCallId: '' }] }])).map((p) => [p[0], p[2]]),
    ).toEqual([
      ['unrecorded-call', 'assistant/message seq 1 calls "d", which was never recorded as tool/call'],
      [
        'malformed-event',
        'tool/call seq 2: data.modelCallId must be a non-empty string when present, got the string ""',
      ],
      ['orphan-result', 'tool/result seq 3 answers "d#2", which was never called'],
    ])
    const nested = log([
      {
        blocks: ['X'],
        calls: [{ callId: 'X' }, { callId: 'X:code:0', parentCallId: 'X', modelCallId: 'y' }],
      },
    ])
    expect(kinds(nested).map((p) => [p[0], p[2]])).toContainEqual([
      'malformed-event',
      'tool/call seq 3: data.modelCallId is set on a nested call, which no model wrote (it has a parentCallId)',
    ])
  })
})
