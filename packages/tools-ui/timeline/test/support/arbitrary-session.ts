import fc from 'fast-check'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type SessionEvent } from '@deepseek-ai/dsh-session'

/** One generated call, in whole milliseconds since the session's start. */
export interface GeneratedCall {
  readonly callId: string
  readonly turn: number
  readonly step: number
  readonly parentCallId: string | undefined
  readonly start: number
  /** When its body settled (its slot freed). */
  readonly settled: number
  /** When its `tool/result` was appended; undefined: the log never answered it. */
  readonly committed: number | undefined
  /** When a body that outlived its result settled (`tool/late-outcome`). */
  readonly late: number | undefined
  readonly isError: boolean
}

export interface GeneratedSession {
  readonly calls: readonly GeneratedCall[]
  readonly events: readonly SessionEvent[]
  /** Whether the results carry `timings` (a loop that records them) or not (an older log). */
  readonly timed: boolean
}

const START = Date.UTC(2025, 0, 1, 12)

interface CallShape {
  readonly startAt: number
  readonly runMs: number
  readonly commitGap: number
  readonly late: number | undefined
  readonly error: boolean
  readonly nested: readonly { readonly startAt: number; readonly runMs: number; readonly gap: number }[]
}

const callShape = (minRunMs: number): fc.Arbitrary<CallShape> =>
  fc.record({
    startAt: fc.integer({ min: 0, max: 80 }),
    runMs: fc.integer({ min: minRunMs, max: 60 }),
    commitGap: fc.integer({ min: 0, max: 15 }),
    late: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
    error: fc.boolean(),
    nested: fc.array(
      fc.record({
        startAt: fc.integer({ min: 0, max: 40 }),
        runMs: fc.integer({ min: minRunMs, max: 40 }),
        gap: fc.integer({ min: 0, max: 5 }),
      }),
      { maxLength: 4 },
    ),
  })

/**
 * Sessions as the loop records them, with the freedom a real run has: each step's calls start when
 * they like (eager, pooled or not), run for any time, and commit in model order (T25: a result waits
 * for the results before it), some with a late outcome (T38); some calls run a program whose nested
 * calls start and settle inside its run and commit in program order before it (T33); the last call
 * may have no result (the process died). With `timed`, results carry `timings` (T28). Runs take
 * `minRunMs` or more (0: some calls are answered in the millisecond they started).
 */
export const arbitrarySession = (
  options: { readonly minRunMs?: number } = {},
): fc.Arbitrary<GeneratedSession> =>
  fc
    .record({
      steps: fc.array(fc.array(callShape(options.minRunMs ?? 0), { minLength: 1, maxLength: 8 }), {
        minLength: 1,
        maxLength: 3,
      }),
      timed: fc.boolean(),
      lastUnanswered: fc.boolean(),
    })
    .map(({ steps, timed, lastUnanswered }) => build(steps, timed, lastUnanswered))

function build(steps: readonly (readonly CallShape[])[], timed: boolean, lastUnanswered: boolean) {
  const calls: GeneratedCall[] = []
  let stepStart = 0
  steps.forEach((shapes, stepIndex) => {
    let lastCommit = stepStart
    shapes.forEach((shape, index) => {
      const callId = `c${stepIndex + 1}_${index + 1}`
      const start = stepStart + shape.startAt
      const children: GeneratedCall[] = []
      let childCommit = start
      let programEnd = start + shape.runMs
      shape.nested.forEach((child, k) => {
        const childStart = start + Math.min(child.startAt, shape.runMs)
        const settled = childStart + child.runMs
        childCommit = Math.max(settled, childCommit) + child.gap
        // the program returns only once its nested calls are answered
        programEnd = Math.max(programEnd, childCommit)
        children.push({
          callId: `${callId}:code:${k + 1}`,
          turn: 1,
          step: stepIndex + 1,
          parentCallId: callId,
          start: childStart,
          settled,
          committed: childCommit,
          late: undefined,
          isError: false,
        })
      })
      const unanswered = lastUnanswered && stepIndex === steps.length - 1 && index === shapes.length - 1
      const committed = unanswered ? undefined : Math.max(programEnd, lastCommit) + shape.commitGap
      if (committed !== undefined) lastCommit = committed
      calls.push({
        callId,
        turn: 1,
        step: stepIndex + 1,
        parentCallId: undefined,
        start,
        settled: programEnd,
        committed,
        late:
          shape.error && committed !== undefined && shape.late !== undefined
            ? committed + shape.late
            : undefined,
        isError: shape.error,
      })
      calls.push(...children)
    })
    const ends = calls.map((call) => Math.max(call.late ?? 0, call.committed ?? call.settled))
    stepStart = Math.max(...ends) + 10
  })
  return { calls, events: record(calls, timed), timed }
}

/** Appends the calls' events in time order (a call's `tool/call` before its result; results in commit order). */
function record(calls: readonly GeneratedCall[], timed: boolean): readonly SessionEvent[] {
  let now = START
  const session = createMemorySession({ clock: () => new Date(now) })
  const appends: { at: number; rank: number; run: () => void }[] = []
  const callSeq = new Map<string, number>()
  const resultSeq = new Map<string, number>()
  calls.forEach((call, order) => {
    appends.push({
      at: call.start,
      rank: order,
      run: () => {
        const event = session.append('tool/call', {
          turn: call.turn,
          step: call.step,
          callId: call.callId,
          name: call.parentCallId === undefined ? 'tool' : 'nested_tool',
          arguments: '{}',
          mode: 'parallel',
          ...(call.parentCallId === undefined ? {} : { parentCallId: call.parentCallId }),
        })
        callSeq.set(call.callId, event.seq)
      },
    })
    const committed = call.committed
    if (committed === undefined) return
    // a program's result comes after its nested calls' results
    appends.push({
      at: committed,
      rank: calls.length + (call.parentCallId === undefined ? 1 : 0) * calls.length + order,
      run: () => {
        const event = session.append(
          'tool/result',
          {
            turn: call.turn,
            step: call.step,
            message: createToolResultMessage({ callId: call.callId, content: 'done', isError: call.isError }),
            ...(call.isError ? { error: { name: 'ToolError', code: 'TIMEOUT' } } : {}),
            ...(timed
              ? {
                  timings: {
                    queueMs: 0,
                    runMs: call.settled - call.start,
                    commitMs: committed - call.settled,
                  },
                }
              : {}),
          },
          { surfaceOp: 'append', sourceEventSeqs: [callSeq.get(call.callId)!] },
        )
        resultSeq.set(call.callId, event.seq)
      },
    })
    if (call.late !== undefined)
      appends.push({
        at: call.late,
        rank: 3 * calls.length + order,
        run: () =>
          session.append(
            'tool/late-outcome',
            { turn: call.turn, step: call.step, callId: call.callId, outcome: { kind: 'value', value: 1 } },
            { sourceEventSeqs: [callSeq.get(call.callId)!, resultSeq.get(call.callId)!] },
          ),
      })
  })
  appends.sort((a, b) => a.at - b.at || a.rank - b.rank)
  for (const append of appends) {
    now = START + append.at
    append.run()
  }
  return session.events()
}
