import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import {
  createAsyncSession,
  createMemorySession,
  parseSessionEvent,
  pendingApprovals,
  type PendingApproval,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'

/**
 * The full scan `pendingApprovals` made before it read on from where it stopped, kept here as the
 * oracle: one pass over every event, a map of each callId's first `tool/call`.
 */
function fullScan(events: readonly SessionEvent[]): PendingApproval[] {
  const calls = new Map<string, number>()
  const open = new Map<number, PendingApproval>()
  for (const event of events) {
    const data = event.data as Record<string, unknown>
    switch (event.type) {
      case 'tool/call':
        if (typeof data.callId === 'string' && !calls.has(data.callId)) calls.set(data.callId, event.seq)
        break
      case 'tool/result': {
        const message = data.message as { content: { callId: string }[] }
        const callId = message.content[0]!.callId
        for (const [seq, approval] of open) if (approval.callId === callId) open.delete(seq)
        break
      }
      case 'approval/request': {
        const { turn, step, callId, name, arguments: args, reason } = data
        if (typeof callId !== 'string' || typeof turn !== 'number') break
        const callSeq = calls.get(callId)
        if (callSeq === undefined) break
        open.set(event.seq, {
          turn,
          step: step as number,
          callId,
          name: name as string,
          arguments: args as string,
          reason: typeof reason === 'string' ? reason : undefined,
          requestSeq: event.seq,
          callSeq,
        })
        break
      }
      case 'approval/answer': {
        const cited = event.sourceEventSeqs?.[0]
        if (cited !== undefined && open.get(cited)?.callId === data.callId) open.delete(cited)
        break
      }
      default:
        break
    }
  }
  return [...open.values()]
}

/** One step of a generated history: an append, or a look at the approvals through some view. */
type Op =
  | { readonly kind: 'call'; readonly id: number }
  | { readonly kind: 'request'; readonly id: number; readonly reason: string | undefined }
  | { readonly kind: 'answer'; readonly back: number; readonly id: number }
  | { readonly kind: 'result'; readonly id: number }
  | { readonly kind: 'note' }
  | { readonly kind: 'read'; readonly view: 'current' | 'older' | 'copy'; readonly back: number }

const id = fc.integer({ min: 0, max: 3 })
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('call' as const), id }),
  fc.record({
    kind: fc.constant('request' as const),
    id,
    reason: fc.option(fc.constantFrom('prod', 'rm'), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('answer' as const), back: fc.nat({ max: 6 }), id }),
  fc.record({ kind: fc.constant('result' as const), id }),
  fc.record({ kind: fc.constant('note' as const) }),
  fc.record({
    kind: fc.constant('read' as const),
    view: fc.constantFrom('current', 'older', 'copy'),
    back: fc.nat({ max: 4 }),
  }),
)

/** Appends `op` to `session` (ids are `c0`…`c3`, so calls repeat, and requests name calls never made). */
function append(session: ReturnType<typeof createMemorySession>, op: Exclude<Op, { kind: 'read' }>): void {
  const callId = 'id' in op ? `c${op.id}` : ''
  switch (op.kind) {
    case 'call':
      session.append('tool/call', { turn: 1, step: 1, callId, name: 'deploy', arguments: '{}' })
      return
    case 'request':
      session.append('approval/request', {
        turn: 1,
        step: 1,
        callId,
        name: 'deploy',
        arguments: '{}',
        ...(op.reason === undefined ? {} : { reason: op.reason }),
      })
      return
    case 'answer': {
      if (session.lastSeq === 0) return
      const cited = Math.max(1, session.lastSeq - op.back)
      session.append('approval/answer', { callId, answer: 'once' }, { sourceEventSeqs: [cited] })
      return
    }
    case 'result': {
      const message = createToolResultMessage({ callId, content: 'ok', isError: false })
      session.append('tool/result', { turn: 1, step: 1, message })
      return
    }
    case 'note':
      session.append('note', { text: 'x' })
      return
  }
}

describe('pendingApprovals reads on from where it stopped', () => {
  it('T30: every reading of a session view equals the full scan of its events (later, older and copied views)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const session = createMemorySession()
        const views: (readonly SessionEvent[])[] = []
        for (const step of ops) {
          if (step.kind !== 'read') {
            append(session, step)
            continue
          }
          const current = session.events()
          views.push(current)
          // An older view is looked at after the current one was read (its reading is further on).
          if (step.view === 'older') pendingApprovals(current)
          const events =
            step.view === 'current'
              ? current
              : step.view === 'older'
                ? views[Math.max(0, views.length - 1 - step.back)]!
                : current.slice()
          expect(pendingApprovals(events)).toEqual(fullScan(events))
        }
        const events = session.events()
        expect(pendingApprovals(events)).toEqual(fullScan(events))
      }),
      { numRuns: 300 },
    )
  })

  it('T30: a reading that threw is started again: the next view is read from its start', async () => {
    // An async store takes any frozen event as an initial one: a result of c1 before c1's request,
    // requests for c1 and c2, then an event whose data getter throws once. A reading that went on
    // from what the throw left would let the early result drop c1's request, and list it after c2's.
    const time = '2026-01-01T00:00:00.000Z'
    const request = (callId: string) => ({ turn: 1, step: 1, callId, name: 'deploy', arguments: '{}' })
    const plain = [
      { type: 'tool/call', data: request('c1') },
      { type: 'tool/call', data: request('c2') },
      {
        type: 'tool/result',
        data: {
          turn: 1,
          step: 1,
          message: createToolResultMessage({ callId: 'c1', content: 'ok', isError: false }),
        },
      },
      { type: 'approval/request', data: request('c1') },
      { type: 'approval/request', data: request('c2') },
    ].map(({ type, data }, index) => {
      const parsed = parseSessionEvent(JSON.stringify({ seq: index + 1, type, time, data }), index + 1)
      if (!parsed.ok) throw new Error(`fixture: ${parsed.problem}`)
      return parsed.event
    })
    let throws = true
    const flaky = Object.freeze({
      seq: 6,
      type: 'note',
      time,
      get data() {
        if (throws) throw new Error('flaky getter')
        return Object.freeze({ text: 'x' })
      },
    }) as unknown as SessionEvent
    const session = createAsyncSession({ write: async () => {}, initialEvents: [...plain, flaky] })
    expect(() => pendingApprovals(session.events())).toThrow('flaky getter')
    throws = false
    await session.append('note', { text: 'after' })
    const events = session.events()
    expect(pendingApprovals(events).map((approval) => approval.requestSeq)).toEqual([4, 5])
    expect(pendingApprovals(events)).toEqual(fullScan(events))
  })

  it('T30: the approvals handed out are frozen (a reading hands the same objects out again)', () => {
    const session = createMemorySession()
    append(session, { kind: 'call', id: 1 })
    append(session, { kind: 'request', id: 1, reason: undefined })
    const [approval] = pendingApprovals(session.events())
    expect(Object.isFrozen(approval)).toBe(true)
    append(session, { kind: 'note' })
    expect(pendingApprovals(session.events())[0]).toBe(approval)
  })
})
