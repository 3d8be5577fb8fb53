import fc from 'fast-check'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { createCallBoard, type BoardNotice } from '../src/progress/call-board.ts'
import { summarizeCalls } from '../src/summary/summarize-calls.ts'

const ok: ToolExecutionResult = { isError: false, content: [{ type: 'text', text: 'done' }] }
const failed = (code: 'TIMEOUT' | 'ABORTED_BEFORE_DISPATCH'): ToolExecutionResult => ({
  isError: true,
  content: [{ type: 'text', text: code }],
  error: { message: `it ended ${code}`, info: { name: code, code } },
})

/** A board for one step of calls named by id; `modes` predicts each call's mode and keys. */
function board(modes: Record<string, { mode: 'parallel' | 'exclusive'; keys?: string[] }>, poolSize = 2) {
  const notices: BoardNotice[] = []
  const b = createCallBoard({
    poolSize,
    predict: (callId) => {
      const m = modes[callId]
      return m === undefined ? undefined : { mode: m.mode, keys: m.keys ?? [] }
    },
    notify: (notice) => notices.push(notice),
  })
  const ids = Object.keys(modes)
  let at = 0
  const base = (callId: string) => ({
    turn: 1,
    step: 1,
    index: ids.indexOf(callId),
    callId,
    name: 'tool',
    at: ++at,
  })
  const send = (event: AgentEvent): void => b.onEvent(event)
  return {
    b,
    notices,
    step: () => send({ type: 'step-start', turn: 1, step: 1, at: ++at }),
    queue: (callId: string) =>
      send({ ...base(callId), type: 'tool-call-queued', label: `tool ${callId}`, eager: false }),
    start: (callId: string) =>
      send({
        ...base(callId),
        type: 'tool-call-start',
        mode: modes[callId]!.mode,
        queueMs: 1,
        duringStream: false,
      }),
    settle: (callId: string, runMs = 10) => send({ ...base(callId), type: 'tool-call-settled', runMs }),
    commit: (callId: string, result = ok, started = true, runMs = 10) =>
      send({
        ...base(callId),
        type: 'tool-call-end',
        result,
        resultLabel: 'tool: done',
        started,
        timings: { queueMs: 1, runMs: started ? runMs : 0, commitMs: 0 },
      }),
    phase: (callId: string) => {
      const call = b.stepCalls().find((c) => c.callId === callId)!
      return `${call.phase}${call.detail === '' ? '' : `: ${call.detail}`}`
    },
  }
}

describe('the call board (what each progress line says)', () => {
  it('T22, T23: numbers pool slots, reuses a freed one, and says who waits at a barrier or for a key', () => {
    const t = board({
      a: { mode: 'parallel', keys: ['job:x'] },
      b: { mode: 'parallel' },
      c: { mode: 'parallel', keys: ['job:x'] },
      w: { mode: 'exclusive' },
      d: { mode: 'parallel' },
    })
    t.step()
    for (const id of ['a', 'b', 'c', 'w', 'd']) t.queue(id)
    expect(t.phase('a')).toBe('queued: waiting to start')
    expect(t.phase('w')).toBe('barrier: runs alone: waits for 3 calls before it to commit')
    expect(t.phase('d')).toBe('barrier: behind #4, which runs alone')
    t.start('a')
    t.start('b')
    expect([t.phase('a'), t.phase('b')]).toEqual(['running: slot 1', 'running: slot 2'])
    expect(t.phase('c')).toBe('key: job:x, held by #1')
    t.settle('a')
    expect(t.phase('a')).toBe('settled: waiting to commit in model order')
    expect(t.phase('c')).toBe('queued: waiting to start')
    t.start('c')
    expect(t.phase('c')).toBe('running: slot 1')
    for (const id of ['a', 'b', 'c']) {
      if (id !== 'a') t.settle(id)
      t.commit(id)
    }
    expect(t.phase('w')).toBe('queued: waiting to start')
    t.start('w')
    expect(t.phase('w')).toBe('running: alone (a barrier)')
    t.b.onApproval('w', true)
    expect(t.phase('w')).toBe('approval: waiting for your answer')
    t.b.onApproval('w', false, 'approved once')
    expect(t.phase('w')).toBe('running: alone (a barrier), approved once')
    t.settle('w')
    t.commit('w')
    t.commit('d', failed('ABORTED_BEFORE_DISPATCH'), false)
    expect(t.phase('d')).toBe('committed')
    expect(t.b.peakParallel()).toBe(2)

    // a log gets one line each time a call moves; the detail alone changing is not a move
    const moves = t.notices.flatMap((n) =>
      n.kind === 'call' && n.moved ? [`${n.call.callId} ${n.call.phase}`] : [],
    )
    expect(moves.filter((m) => m.startsWith('d '))).toEqual(['d barrier', 'd queued', 'd committed'])
    expect(moves.filter((m) => m.startsWith('c '))).toEqual([
      'c queued',
      'c key',
      'c queued',
      'c running',
      'c committed',
    ])
  })

  it('T23: slots stay within the pool and no two running calls share one, whatever the order of events', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        (pool, choices) => {
          const ids = Array.from({ length: 12 }, (_, i) => `c${i}`)
          const t = board(Object.fromEntries(ids.map((id) => [id, { mode: 'parallel' as const }])), pool)
          t.step()
          for (const id of ids) t.queue(id)
          const running: string[] = []
          let next = 0
          for (const choice of choices) {
            // start the next call when a slot is free, else settle one of the running calls
            if (running.length < pool && next < ids.length && choice % 2 === 0) {
              t.start(ids[next]!)
              running.push(ids[next++]!)
            } else if (running.length > 0) {
              const [done] = running.splice(choice % running.length, 1)
              t.settle(done!)
            }
            const slots = t.b
              .stepCalls()
              .filter((c) => c.phase === 'running')
              .map((c) => c.slot!)
            expect(new Set(slots).size).toBe(slots.length)
            for (const slot of slots) expect(slot >= 1 && slot <= pool).toBe(true)
          }
          expect(t.b.peakParallel()).toBeLessThanOrEqual(pool)
        },
      ),
    )
  })
})

describe('summarizeCalls', () => {
  it('counts outcomes and weighs the calls’ run times against the steps’ wall time', () => {
    const t = board({ a: { mode: 'parallel' }, b: { mode: 'parallel' }, c: { mode: 'parallel' } }, 3)
    t.step()
    for (const id of ['a', 'b', 'c']) t.queue(id)
    t.start('a') // at 5
    t.start('b') // at 6
    t.settle('a', 40)
    t.commit('a', ok, true, 40)
    t.settle('b', 30)
    t.commit('b', failed('TIMEOUT'), true, 30) // last commit at 10
    t.commit('c', failed('ABORTED_BEFORE_DISPATCH'), false)
    const summary = summarizeCalls(t.b.calls(), t.b.peakParallel())
    expect(summary.calls).toBe(3)
    expect(summary.byOutcome).toEqual([
      ['ok', 1],
      ['ABORTED_BEFORE_DISPATCH', 1],
      ['TIMEOUT', 1],
    ])
    expect(summary.peakParallel).toBe(2)
    expect(summary.serialMs).toBe(70)
    // first start (at 5) to the last commit of a started call (at 10)
    expect(summary.wallMs).toBe(5)
  })
})
