import fc from 'fast-check'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import pc from 'picocolors'
import { createCallBoard, type BoardNotice } from '../src/progress/call-board.ts'
import { describeCallState } from '../src/progress/describe-call.ts'
import { summaryLines } from '../src/summary/print-summary.ts'
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
    /** The next event happens at `ms` (each event ticks the clock by 1 ms otherwise). */
    at: (ms: number) => {
      at = ms - 1
    },
    commit: (callId: string, result = ok, started = true, runMs = 10) =>
      send({
        ...base(callId),
        type: 'tool-call-end',
        result,
        resultLabel: 'tool: done',
        started,
        timings: { queueMs: 1, runMs: started ? runMs : 0, commitMs: 0 },
      }),
    call: (callId: string) => b.stepCalls().find((c) => c.callId === callId)!,
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
    expect(t.b.peakParallel()).toEqual({ parallel: 2, nested: 0 })

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
          expect(t.b.peakParallel().parallel).toBeLessThanOrEqual(pool)
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

describe('time spent waiting for a person', () => {
  const plain = pc.createColors(false)

  it('T22: a call waiting for approval is shown waiting, and its run time leaves the wait out', () => {
    const t = board({ w: { mode: 'exclusive' } })
    t.step()
    t.queue('w')
    t.at(100)
    t.start('w')
    t.b.onApproval('w', true, undefined, 101)
    expect(describeCallState(t.call('w'), plain, 6_101)).toBe('waiting for approval 6.0 s')
    t.b.onApproval('w', false, 'approved once', 8_101)
    // running again: 8,201 − 100, less the 8,000 it waited
    expect(describeCallState(t.call('w'), plain, 8_201)).toBe('running alone (barrier), approved once 101 ms')
    // the loop's run time is start → settled: 8,002 ms, of which 2 ms ran
    t.at(8_102)
    t.settle('w', 8_002)
    t.commit('w', ok, true, 8_002)
    expect(describeCallState(t.call('w'), plain)).toBe(
      'ok (ran 2 ms + 8.0 s waiting for approval, queued 1 ms, approved once) → tool: done',
    )
  })

  it('T33: a program whose nested call waited says so; the summary leaves the wait out of both times', () => {
    const t = board({ p: { mode: 'exclusive' } }, 3)
    t.step()
    t.queue('p')
    t.at(1_000)
    t.start('p')
    t.b.onApproval('p:code:2', true, undefined, 1_100)
    t.b.onApproval('p:code:2', false, 'denied by you', 4_100)
    t.at(4_400)
    t.settle('p', 3_400)
    t.at(4_500)
    t.commit('p', ok, true, 3_400)
    expect(describeCallState(t.call('p'), plain)).toBe(
      'ok (ran 400 ms + 3.0 s waiting for a nested call’s approval, queued 1 ms, a nested call denied by you) → tool: done',
    )
    const summary = summarizeCalls(t.b.calls(), t.b.peakParallel())
    // the step ran from 1,000 to its commit at 4,500, and for 3,000 of it nobody worked
    expect([summary.serialMs, summary.wallMs, summary.approvalMs]).toEqual([400, 500, 3_000])
  })
})

describe('peak parallelism in the summary', () => {
  const plain = pc.createColors(false)
  const facts = (summary: ReturnType<typeof summarizeCalls>) => ({
    summary,
    poolSize: 3,
    turns: 1,
    sessionPath: '/s.jsonl',
    scratch: '/scratch',
    timeline: 'node cli.js /s.jsonl > /t.html',
    resume: undefined,
  })
  /** One program running 0–100 (its events' clock). */
  const program = () => {
    const t = board({ p: { mode: 'parallel' } }, 3)
    t.step()
    t.queue('p')
    t.at(0)
    t.start('p')
    t.at(100)
    t.settle('p', 100)
    t.commit('p', ok, true, 100)
    return t
  }

  it('T33: counts a program’s nested calls with it, in the order they entered and left their runs', () => {
    const t = board({ p: { mode: 'parallel' }, q: { mode: 'parallel' } }, 3)
    t.step()
    t.queue('p')
    t.queue('q')
    t.start('p')
    // three nested calls at once; one leaves before a fourth enters, so never four nested at once
    for (const running of [true, true, true, false, true]) t.b.onNestedRun(running)
    expect(t.b.peakParallel()).toEqual({ parallel: 4, nested: 3 })
    expect(summaryLines(facts(summarizeCalls(t.b.calls(), t.b.peakParallel())), plain)[2]).toBe(
      '  parallel  up to 4 calls at once, 3 of them nested in a program (pool of 3)',
    )
    // the same count reached later without nested calls does not replace it: more of them is more telling
    for (const running of [false, false, false]) t.b.onNestedRun(running)
    t.start('q')
    t.b.onNestedRun(true)
    t.b.onNestedRun(true)
    expect(t.b.peakParallel()).toEqual({ parallel: 4, nested: 3 })
    t.b.onNestedRun(true)
    // five at once: two of the model’s calls, three nested ones
    expect(t.b.peakParallel()).toEqual({ parallel: 5, nested: 3 })
    // without nested calls the line is as it always was
    const alone = program()
    expect(summaryLines(facts(summarizeCalls(alone.b.calls(), alone.b.peakParallel())), plain)[2]).toBe(
      '  parallel  up to 1 call at once (pool of 3)',
    )
  })

  it('wraps the prose on a terminal under its value, and never a path or a command', () => {
    const t = program()
    const lines = summaryLines(
      {
        ...facts(summarizeCalls(t.b.calls(), t.b.peakParallel())),
        timeline: `node ${'x'.repeat(60)}/cli.js /s.jsonl > /t.html`,
      },
      plain,
      40,
    )
    expect(lines).toEqual([
      'Summary',
      '  calls     1 in 1 turn: 1 ok',
      '  parallel  up to 1 call at once (pool',
      '            of 3)',
      '  time      100 ms of tool time in',
      '            101 ms: 1 ms lost against',
      '            running the calls one after',
      '            another',
      '  session   /s.jsonl',
      '  scratch   /scratch',
      `  timeline  node ${'x'.repeat(60)}/cli.js /s.jsonl > /t.html`,
    ])
    for (const line of lines.slice(0, 8)) expect(line.length).toBeLessThanOrEqual(40)
  })
})
