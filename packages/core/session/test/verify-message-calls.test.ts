import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  verifyToolPairs,
  type Session,
  type SessionEvent,
  type ToolPairProblemKind,
} from '@deepseek-ai/dsh-session'

/** One step as the loop records it: its assistant message, then calls and results. */
interface StepPlan {
  readonly turn: number
  readonly step: number
  readonly calls: readonly string[]
  /** Whether each tool/call cites the message (the loop does; a harness may not). */
  readonly cite: boolean
  /** How calls and results interleave (results stay in call order, each after its call). */
  readonly order: readonly boolean[]
  /** A tool-context user/message after the results. */
  readonly context: boolean
}

type Op =
  | { readonly kind: 'message'; readonly plan: StepPlan }
  | {
      readonly kind: 'call'
      readonly plan: StepPlan
      readonly callId: string
      readonly args?: string
      readonly cite?: 'none' | 'bad'
    }
  | { readonly kind: 'result'; readonly plan: StepPlan; readonly callId: string }
  | { readonly kind: 'user'; readonly plan: StepPlan }

const args = (callId: string): string => JSON.stringify({ of: callId })

function opsOf(plans: readonly StepPlan[]): Op[] {
  const ops: Op[] = []
  for (const plan of plans) {
    ops.push({ kind: 'message', plan })
    let called = 0
    let answered = 0
    let choice = 0
    while (answered < plan.calls.length) {
      const callNext =
        called < plan.calls.length &&
        (answered === called || plan.order[choice++ % plan.order.length] === true)
      if (callNext) ops.push({ kind: 'call', plan, callId: plan.calls[called++]! })
      else ops.push({ kind: 'result', plan, callId: plan.calls[answered++]! })
    }
    if (plan.context) ops.push({ kind: 'user', plan })
  }
  return ops
}

/** Records the ops in a memory session, the way the loop does (tool/call citing its message). */
function record(ops: readonly Op[]): SessionEvent[] {
  const session: Session = createMemorySession()
  const messageSeq = new Map<StepPlan, number>()
  const callSeq = new Map<string, number>()
  for (const op of ops) {
    const { turn, step } = op.plan
    switch (op.kind) {
      case 'message': {
        const content = op.plan.calls.map((id) => ({
          type: 'tool-call',
          id,
          name: 'tool',
          arguments: args(id),
        }))
        const message = { role: 'assistant', content: [{ type: 'text', text: 'calling' }, ...content] }
        const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
        messageSeq.set(
          op.plan,
          session.append('assistant/message', { turn, step, message, finishReason: 'tool-calls', usage }).seq,
        )
        break
      }
      case 'call': {
        const data = { turn, step, callId: op.callId, name: 'tool', arguments: op.args ?? args(op.callId) }
        const seq = messageSeq.get(op.plan)
        const cite = op.cite ?? (op.plan.cite && seq !== undefined ? 'message' : 'none')
        // a wrong source: the event just before, unless that is the message itself (then none at all)
        const bad = session.lastSeq !== seq && session.lastSeq > 0 ? [session.lastSeq] : []
        const options = cite === 'none' ? undefined : { sourceEventSeqs: cite === 'bad' ? bad : [seq!] }
        callSeq.set(op.callId, session.append('tool/call', data, options).seq)
        break
      }
      case 'result': {
        const message = createToolResultMessage({ callId: op.callId, content: 'ok', isError: false })
        const seq = callSeq.get(op.callId)
        session.append(
          'tool/result',
          { turn, step, message },
          { surfaceOp: 'append', sourceEventSeqs: seq === undefined ? [] : [seq] },
        )
        break
      }
      case 'user':
        session.append('user/message', {
          turn,
          step: step + 1,
          message: { role: 'user', content: [{ type: 'text', text: 'context' }] },
          source: 'tool-context',
        })
        break
      default:
        op satisfies never
    }
  }
  return [...session.events()]
}

const plans: fc.Arbitrary<StepPlan[]> = fc
  .array(
    fc.record({
      calls: fc.nat(4),
      cite: fc.boolean(),
      order: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      context: fc.boolean(),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((steps) =>
    steps.map((s, i) => ({
      turn: 1 + Math.floor(i / 2),
      step: 1 + (i % 2),
      calls: Array.from({ length: s.calls }, (_, k) => `c${i}.${k}`),
      cite: s.cite,
      order: s.order,
      context: s.context,
    })),
  )

type Corruption = (ops: Op[], pick: number) => ToolPairProblemKind | undefined

const indexesOf = (ops: readonly Op[], kind: Op['kind']): number[] =>
  ops.flatMap((op, i) => (op.kind === kind ? [i] : []))

/** Each changes a loop-shaped log and names the problem it must cause. */
const CORRUPTIONS: Record<string, Corruption> = {
  'record a call before its message (an eager start recorded too early)': (ops, pick) => {
    const calls = indexesOf(ops, 'call')
    if (calls.length === 0) return undefined
    const at = calls[pick % calls.length]!
    const call = ops[at] as Op & { kind: 'call' }
    ops.splice(at, 1)
    const message = ops.findIndex((op) => op.kind === 'message' && op.plan === call.plan)
    ops.splice(message, 0, { ...call, cite: 'none' })
    return 'call-before-message'
  },
  'never record a call of the message': (ops, pick) => {
    const calls = indexesOf(ops, 'call')
    if (calls.length === 0) return undefined
    const call = ops[calls[pick % calls.length]!] as Op & { kind: 'call' }
    const kept = ops.filter(
      (op) => !((op.kind === 'call' || op.kind === 'result') && op.callId === call.callId),
    )
    ops.splice(0, ops.length, ...kept)
    return 'unrecorded-call'
  },
  'record other arguments than the message holds': (ops, pick) => {
    const calls = indexesOf(ops, 'call')
    if (calls.length === 0) return undefined
    const at = calls[pick % calls.length]!
    ops[at] = { ...(ops[at] as Op & { kind: 'call' }), args: '{"changed":true}' }
    return 'call-not-in-message'
  },
  'cite something else than the message': (ops, pick) => {
    const calls = indexesOf(ops, 'call').filter(
      (i) => (ops[i] as Op & { kind: 'call' }).plan.step > 1 || i > 1,
    )
    if (calls.length === 0) return undefined
    const at = calls[pick % calls.length]!
    ops[at] = { ...(ops[at] as Op & { kind: 'call' }), cite: 'bad' }
    return 'wrong-message-source'
  },
  'answer a call after the next message': (ops, pick) => {
    const results = indexesOf(ops, 'result').filter((i) =>
      ops.slice(i + 1).some((op) => op.kind === 'message' || op.kind === 'user'),
    )
    if (results.length === 0) return undefined
    const at = results[pick % results.length]!
    const [result] = ops.splice(at, 1)
    const next = ops.findIndex((op, i) => i >= at && (op.kind === 'message' || op.kind === 'user'))
    ops.splice(next + 1, 0, result!)
    return 'answer-after-next-message'
  },
}

describe('verifyToolPairs against the assistant messages (T30, T40)', () => {
  it('T40: finds no problem in a log recorded the way the loop records steps (calls citing their message or not)', () => {
    fc.assert(
      fc.property(plans, (steps) => {
        expect(verifyToolPairs(record(opsOf(steps)))).toEqual({ ok: true, problems: [] })
      }),
      { numRuns: 300 },
    )
  })

  it('T40: finds each injected message problem', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(plans, fc.constantFrom(...Object.keys(CORRUPTIONS)), fc.nat(), (steps, name, pick) => {
        const ops = opsOf(steps)
        const expected = CORRUPTIONS[name]!(ops, pick)
        fc.pre(expected !== undefined)
        seen.add(name)
        const report = verifyToolPairs(record(ops))
        expect(report.ok).toBe(false)
        expect(report.problems.map((problem) => problem.kind)).toContain(expected)
      }),
      { numRuns: 1000 },
    )
    expect([...seen].sort()).toEqual(Object.keys(CORRUPTIONS).sort())
  })

  it('T40: names each message problem with its seq and callId', () => {
    const plan: StepPlan = {
      turn: 1,
      step: 1,
      calls: ['a', 'b', 'c'],
      cite: true,
      order: [true],
      context: false,
    }
    const events = record([
      { kind: 'call', plan, callId: 'a', cite: 'none' },
      { kind: 'message', plan },
      { kind: 'call', plan, callId: 'b', args: '{}' },
      { kind: 'result', plan, callId: 'a' },
      { kind: 'result', plan, callId: 'b' },
      { kind: 'user', plan },
    ])
    expect(verifyToolPairs(events).problems).toEqual([
      {
        kind: 'call-before-message',
        seq: 1,
        callId: 'a',
        message: 'tool/call seq 1 ("a") is recorded before the assistant/message of turn 1 step 1 (seq 2)',
      },
      {
        kind: 'unrecorded-call',
        seq: 2,
        callId: 'c',
        message: 'assistant/message seq 2 calls "c", which was never recorded as tool/call',
      },
      {
        kind: 'call-not-in-message',
        seq: 3,
        callId: 'b',
        message:
          'tool/call seq 3 ("b") differs from the call the assistant/message of turn 1 step 1 (seq 2) holds (name or arguments)',
      },
    ])
    const single: StepPlan = { ...plan, calls: ['x'] }
    const cited = record([
      { kind: 'message', plan: single },
      { kind: 'call', plan: single, callId: 'x', cite: 'bad' },
    ])
    expect(verifyToolPairs(cited).problems.map((p) => [p.kind, p.seq, p.message])).toEqual([
      ['unanswered-call', 2, 'tool/call seq 2 ("x") never got a tool/result'],
      [
        'wrong-message-source',
        2,
        'tool/call seq 2 ("x") has sourceEventSeqs []; expected [1], the assistant/message of turn 1 step 1',
      ],
    ])
  })
})
