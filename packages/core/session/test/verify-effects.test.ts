import { describe, expect, it } from 'vitest'
import { createMemorySession, verifyEffects, type Session } from '@deepseek-ai/dsh-session'

function call(session: Session, callId: string, name = 'deploy'): number {
  return session.append('tool/call', { turn: 1, step: 1, callId, name, arguments: '{}' }).seq
}

function began(session: Session, callSeq: number, callId: string, idempotent: boolean, attempt = 1): void {
  session.append(
    'tool/began',
    { turn: 1, step: 1, callId, name: 'deploy', attempt, idempotent, idempotencyKey: `s:${callId}` },
    { sourceEventSeqs: [callSeq] },
  )
}

function result(session: Session, callSeq: number, callId: string, code?: string): void {
  session.append(
    'tool/result',
    {
      turn: 1,
      step: 1,
      message: {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId,
            content: [{ type: 'text', text: 'x' }],
            isError: code !== undefined,
          },
        ],
      },
      ...(code === undefined ? {} : { error: { name: 'ToolError', code } }),
    },
    { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
  )
}

describe('verifyEffects (T53)', () => {
  it('T53: lists exactly the calls that began and were never answered (not idempotent) or were answered INTERRUPTED', () => {
    const session = createMemorySession()
    const never = call(session, 'never') // recorded, never began: nothing ran
    const done = call(session, 'done')
    began(session, done, 'done', false)
    result(session, done, 'done') // a real result: known
    const lost = call(session, 'lost')
    began(session, lost, 'lost', false) // began, never answered, not idempotent: unknown
    const retry = call(session, 'retry')
    began(session, retry, 'retry', true) // idempotent and unanswered: resume completes it
    const cut = call(session, 'cut')
    began(session, cut, 'cut', false)
    result(session, cut, 'cut', 'INTERRUPTED') // answered, but nobody knows whether it happened
    const spent = call(session, 'spent')
    began(session, spent, 'spent', true, 1)
    began(session, spent, 'spent', true, 2)
    result(session, spent, 'spent', 'INTERRUPTED') // idempotent, out of attempts
    const failed = call(session, 'failed')
    began(session, failed, 'failed', false)
    result(session, failed, 'failed', 'TOOL_FAILED') // the body answered: known
    void never

    const report = verifyEffects(session.events())
    expect(report.ok).toBe(false)
    expect(report.unknown.map((entry) => [entry.callId, entry.state, entry.attempts])).toEqual([
      ['lost', 'unanswered', 1],
      ['cut', 'interrupted', 1],
      ['spent', 'interrupted', 2],
    ])
    expect(report.unknown[0]).toMatchObject({ name: 'deploy', turn: 1, step: 1, idempotencyKey: 's:lost' })
  })

  it('T53: a log without tool/began (or with only answered calls) is clean; malformed events are skipped', () => {
    const session = createMemorySession()
    const a = call(session, 'a')
    result(session, a, 'a', 'INTERRUPTED')
    session.append('tool/began', 'not an object')
    session.append('tool/began', { callId: 'nobody' })
    expect(verifyEffects(session.events())).toEqual({ ok: true, unknown: [] })
  })
})
