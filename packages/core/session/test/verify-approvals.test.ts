import { describe, expect, it } from 'vitest'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  pendingApprovals,
  verifyToolPairs,
  type Session,
  type ToolPairProblemKind,
} from '@deepseek-ai/dsh-session'

const block = (id: string) => ({ type: 'tool-call', id, name: 'deploy', arguments: `{"env":"${id}"}` })

/**
 * A paused step as the loop records it: a message with calls c1 c2 c3; c1 answered; c2 called and
 * its approval requested (pending); c3 not started.
 */
function pausedStep(): { session: Session; seqs: Record<string, number> } {
  const session = createMemorySession()
  const seqs: Record<string, number> = {}
  session.append('turn/start', { turn: 1 })
  session.append('user/message', {
    turn: 1,
    step: 1,
    message: { role: 'user', content: [{ type: 'text', text: 'deploy' }] },
    source: 'user',
  })
  seqs.message = session.append('assistant/message', {
    turn: 1,
    step: 1,
    message: { role: 'assistant', content: ['c1', 'c2', 'c3'].map(block) },
    finishReason: 'tool-calls',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  }).seq
  for (const id of ['c1', 'c2']) {
    seqs[id] = session.append(
      'tool/call',
      { turn: 1, step: 1, callId: id, name: 'deploy', arguments: `{"env":"${id}"}` },
      { sourceEventSeqs: [seqs.message] },
    ).seq
    if (id === 'c1') result(session, id, seqs[id]!)
  }
  seqs.request = session.append(
    'approval/request',
    { turn: 1, step: 1, callId: 'c2', name: 'deploy', arguments: '{"env":"c2"}', reason: 'prod' },
    { sourceEventSeqs: [seqs.c2!] },
  ).seq
  return { session, seqs }
}

function result(session: Session, callId: string, callSeq: number): number {
  const message = createToolResultMessage({ callId, content: [{ type: 'text', text: 'ok' }], isError: false })
  return session.append(
    'tool/result',
    { turn: 1, step: 1, message },
    { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
  ).seq
}

const kinds = (session: Session): ToolPairProblemKind[] =>
  verifyToolPairs(session.events()).problems.map((p) => p.kind)

describe('the replay check covers durable approvals (T30)', () => {
  it('T30: a step paused on its approval is a valid log, and pendingApprovals lists the approval', () => {
    const { session, seqs } = pausedStep()
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    expect(pendingApprovals(session.events())).toEqual([
      {
        turn: 1,
        step: 1,
        callId: 'c2',
        name: 'deploy',
        arguments: '{"env":"c2"}',
        reason: 'prod',
        requestSeq: seqs.request,
        callSeq: seqs.c2,
      },
    ])
  })

  it('T30: the answered step that goes on to its end is a valid log, with nothing pending', () => {
    const { session, seqs } = pausedStep()
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'session', scope: 'tool' },
      { sourceEventSeqs: [seqs.request!] },
    )
    result(session, 'c2', seqs.c2!)
    const c3 = session.append(
      'tool/call',
      { turn: 1, step: 1, callId: 'c3', name: 'deploy', arguments: '{"env":"c3"}' },
      { sourceEventSeqs: [seqs.message!] },
    ).seq
    result(session, 'c3', c3)
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    expect(pendingApprovals(session.events())).toEqual([])
  })

  it('T30: an answered approval whose call has no result yet is an unanswered call (a stopped process)', () => {
    const { session, seqs } = pausedStep()
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'once' },
      { sourceEventSeqs: [seqs.request!] },
    )
    expect(kinds(session)).toEqual(['unrecorded-call', 'unanswered-call'])
    expect(pendingApprovals(session.events())).toEqual([])
  })

  it('T30: a pending approval followed by a message or a call is reported, and excuses nothing', () => {
    const { session } = pausedStep()
    session.append('user/message', {
      turn: 2,
      step: 1,
      message: { role: 'user', content: [{ type: 'text', text: 'next' }] },
      source: 'user',
    })
    expect(kinds(session)).toEqual(['unrecorded-call', 'unanswered-call', 'approval-not-last'])
  })

  it('T30: requests and answers that do not fit their call are each reported', () => {
    const { session, seqs } = pausedStep()
    const wrong = session.append(
      'approval/request',
      { turn: 1, step: 1, callId: 'c1', name: 'deploy', arguments: '{"env":"other"}' },
      { sourceEventSeqs: [seqs.message!] },
    )
    session.append(
      'approval/request',
      { turn: 1, step: 1, callId: 'ghost', name: 'deploy', arguments: '{}' },
      { sourceEventSeqs: [seqs.c2!] },
    )
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'once' },
      { sourceEventSeqs: [wrong.seq] },
    )
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'maybe' },
      { sourceEventSeqs: [seqs.request!] },
    )
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'reject', feedback: 'no' },
      { sourceEventSeqs: [seqs.request!] },
    )
    session.append(
      'approval/answer',
      { turn: 1, step: 1, callId: 'c2', answer: 'once' },
      { sourceEventSeqs: [seqs.request!] },
    )
    expect(verifyToolPairs(session.events()).problems.map((p) => [p.seq, p.kind])).toEqual([
      [3, 'unrecorded-call'], // c3: the step went on after the rejection without recording it
      [6, 'unanswered-call'], // c2 was rejected but its result never recorded (a stopped process)
      [8, 'approval-without-call'], // other arguments than c1's call
      [8, 'approval-wrong-source'], // cites the message, not the call
      [8, 'approval-after-result'], // c1 already has its result
      [9, 'approval-without-call'], // "ghost" was never called
      [10, 'answer-without-request'], // cites a request of another call
      [11, 'malformed-event'], // answer "maybe"
      [13, 'duplicate-approval'], // the request was answered at seq 12
    ])
  })

  it('pendingApprovals refuses what is not an array and skips malformed events', () => {
    expect(() => pendingApprovals(null as never)).toThrow(/events must be an array/)
    expect(pendingApprovals([null, { seq: 1, type: 'approval/request', data: 'x' }] as never)).toEqual([])
  })
})
