import { beforeAll, describe, expect, it } from 'vitest'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  readJsonlSession,
  verifyToolPairs,
  type SessionEvent,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { buildTimeline, TimelineError, type Timeline, type TimelineStep } from '@deepseek-ai/dsh-timeline'
import { recordCodeModeSession, recordDemoSession } from './support/record-session.ts'
import { syntheticSessionEvents } from './support/synthetic-session.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-timeline-', { until: 'file' })

/** `[name, row label, start, end, status, mode]` of each call, in seq order: a compact view. */
const callsOf = (step: TimelineStep) =>
  step.calls.map((call) => [
    call.name,
    step.rows[call.row]!.label,
    call.start,
    call.end,
    call.status,
    call.mode,
  ])

describe('a session recorded by the real loop (it records each call’s mode and timings)', () => {
  let events: readonly SessionEvent[]
  let timeline: Timeline
  beforeAll(async () => {
    events = readJsonlSession((await recordDemoSession(tempDir())).path).events
    timeline = buildTimeline(events, { title: 'demo.jsonl' })
  })

  it('T28: the fixture is a valid, replayable log', () => {
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    expect(timeline.recorded).toEqual({ mode: true, timings: true })
    expect(timeline.notes).toEqual([])
    expect(timeline.totals).toEqual({
      events: events.length,
      steps: 3,
      calls: 16,
      byStatus: { ok: 12, error: 2, aborted: 1, 'not-started': 1, interrupted: 0, 'no-result': 0 },
    })
  })

  it('T23: a rolling pool of 3 fills three lanes, each freed slot refilled at once; T22: the exclusive call is a barrier', () => {
    const [step] = timeline.steps
    // the recorded run times free a slot when the body settles, as the pool does: lanes are slots
    expect(step!.rows.map((row) => row.label)).toEqual(['slot 1', 'slot 2', 'slot 3'])
    expect(callsOf(step!)).toEqual([
      ['list_dir', 'slot 1', 0, 20, 'ok', 'parallel'],
      ['read_file', 'slot 2', 0, 35, 'ok', 'parallel'],
      ['read_file', 'slot 3', 0, 60, 'ok', 'parallel'],
      // started when list_dir's slot freed; settled at 45, committed after the slower read before it (T25)
      ['grep', 'slot 1', 20, 45, 'ok', 'parallel'],
      ['read_file', 'slot 2', 35, 65, 'ok', 'parallel'],
      ['write_note', 'slot 1', 65, 80, 'ok', 'exclusive'],
      ['calc', 'slot 1', 80, 85, 'ok', 'parallel'],
      ['flaky', 'slot 2', 80, 90, 'error', 'parallel'],
      ['read_file', 'slot 3', 80, 100, 'ok', 'parallel'],
    ])
    expect([step!.calls[3]!.settled, step!.calls[3]!.committed]).toEqual([45, 60])
    expect(step!.barriers).toEqual([
      { callSeq: step!.calls[5]!.seq, start: 65, end: 80, firstRow: 0, lastRow: 2, inferred: false },
    ])
    expect(step!.calls[7]!.error).toEqual({ code: 'TOOL_FAILED', name: 'ToolFailed' })
    expect(step!.stats).toMatchObject({ calls: 9, peakParallel: 3, busyMs: 220, wallMs: 100 })
  })

  it('T26: an abort drains the started calls (ABORTED) and marks the one it kept from starting', () => {
    const step = timeline.steps[1]!
    expect([step.turn, step.step]).toEqual([1, 2])
    expect(step.rows.map((row) => [row.kind, row.label])).toEqual([
      ['slot', 'slot 1'],
      ['slot', 'slot 2'],
      ['slot', 'slot 3'],
      ['not-started', 'not started'],
    ])
    // the two reads settled early and waited for the aborted fetch to commit first (T25)
    expect(callsOf(step)).toEqual([
      ['slow_fetch', 'slot 1', 0, 60, 'aborted', 'parallel'],
      ['read_file', 'slot 2', 0, 10, 'ok', 'parallel'],
      ['grep', 'slot 3', 0, 25, 'ok', 'parallel'],
      ['write_note', 'not started', 60, 60, 'not-started', undefined],
    ])
    expect(step.calls.map((call) => call.committed)).toEqual([60, 60, 60, 60])
    expect(step.barriers).toEqual([])
  })

  it('T21: a call whose arguments do not validate ran alone, then the pool took the rest', () => {
    const step = timeline.steps[2]!
    // the call that ran alone took no time, but its bar is drawn at its instant: the two calls that
    // started in the same millisecond take lanes of their own, so the rows are no longer slots
    expect(callsOf(step)).toEqual([
      ['read_file', 'lane 1', 0, 0, 'error', 'exclusive'],
      ['calc', 'lane 2', 0, 5, 'ok', 'parallel'],
      ['list_dir', 'lane 3', 0, 20, 'ok', 'parallel'],
    ])
    expect(step.calls[0]!.error?.code).toBe('INVALID_ARGUMENTS')
    expect(step.barriers.map((barrier) => [barrier.start, barrier.end])).toEqual([[0, 0]])
    // the call that ran alone ended before the other two started, in the same millisecond
    expect(step.stats).toMatchObject({ peakParallel: 2, busyMs: 25, wallMs: 20 })
  })

  it('tooltips get the arguments pretty-printed and the result text', () => {
    const call = timeline.steps[0]!.calls[1]!
    expect(call.arguments).toEqual({ text: '{\n  "path": "docs/architecture.md"\n}', omitted: 0 })
    expect(call.result).toEqual({
      text: '# docs/architecture.md\n\n(contents of docs/architecture.md)',
      omitted: 0,
    })
    expect(call.times).toEqual({ call: '2025-01-01T09:00:00.000Z', result: '2025-01-01T09:00:00.035Z' })
    expect(timeline.steps[0]!.startTime).toBe('2025-01-01T09:00:00.000Z')
  })
})

describe('a session that records mode, timings and nested calls', () => {
  const timeline = buildTimeline(syntheticSessionEvents())

  it('T22, T33: recorded modes make barriers (not inferred); nested calls sit on rows under their parent', () => {
    expect(timeline.recorded).toEqual({ mode: true, timings: true })
    const step = timeline.steps[0]!
    expect(step.rows.map((row) => [row.kind, row.depth, row.label])).toEqual([
      ['slot', 0, 'slot 1'],
      ['nested', 1, '↳ nested slot 1'],
      ['nested', 1, '↳ nested slot 2'],
      ['slot', 0, 'slot 2'],
    ])
    expect(callsOf(step)).toEqual([
      ['run_code', 'slot 1', 0, 45, 'ok', 'parallel'],
      ['read_file', 'slot 2', 0, 12, 'ok', 'parallel'],
      ['read_file', '↳ nested slot 1', 2, 20, 'ok', 'parallel'],
      ['grep', '↳ nested slot 2', 2, 25, 'ok', 'parallel'],
      ['write_note', '↳ nested slot 1', 25, 40, 'ok', 'exclusive'],
      ['deploy', 'slot 1', 45, 80, 'error', 'exclusive'],
    ])
    const [runCode, , nested1, , nested3] = step.calls
    expect([nested1!.parentSeq, nested3!.parentSeq, nested1!.depth]).toEqual([runCode!.seq, runCode!.seq, 1])
    expect(step.barriers.map((b) => [b.start, b.end, b.firstRow, b.lastRow, b.inferred])).toEqual([
      [25, 40, 1, 2, false],
      [45, 80, 0, 3, false],
    ])
  })

  it('T25: a call that settled early shows its wait for the commit turn; T38: a body outliving its result extends the claim', () => {
    const [, b, , , , deploy] = timeline.steps[0]!.calls
    expect([b!.settled, b!.committed, b!.end]).toEqual([12, 45, 12])
    expect([deploy!.settled, deploy!.committed, deploy!.late, deploy!.end]).toEqual([50, 50, 80, 80])
    expect(deploy!.error).toEqual({ code: 'TIMEOUT', name: 'ToolError' })
    expect(deploy!.lateOutcome).toEqual({ text: 'returned "deployed"', omitted: 0 })
    // the serial cost and the wall time are the step's own calls (a program's run holds its nested ones)
    expect(timeline.steps[0]!.stats).toMatchObject({ busyMs: 62, wallMs: 50 })
  })

  it('T33: peak parallelism counts nested calls: at 2 ms the program, the other read and two nested calls ran', () => {
    expect(timeline.steps[0]!.stats).toMatchObject({ peakParallel: 4, peakNested: 2 })
  })

  it('marks an interrupted call and one the log never answered', () => {
    const [, interrupted, open] = timeline.steps
    expect(callsOf(interrupted!)).toEqual([['fetch', 'slot 1', 0, 4900, 'interrupted', 'parallel']])
    expect(callsOf(open!)).toEqual([['read_file', 'slot 1', 0, 30, 'no-result', 'parallel']])
    expect(open!.calls[0]!.result).toBeUndefined()
    expect(timeline.totals.byStatus).toEqual({
      ok: 5,
      error: 1,
      aborted: 0,
      'not-started': 0,
      interrupted: 1,
      'no-result': 1,
    })
  })
})

describe('a Code Mode session recorded by the real loop (nested calls record mode and timings too)', () => {
  it('T28, T33: nested bars end when their bodies settled, in recorded modes, on rows that are the program’s slots', async () => {
    const events = readJsonlSession((await recordCodeModeSession(tempDir())).path).events
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    const timeline = buildTimeline(events, { title: 'code-mode.jsonl' })
    expect(timeline.notes).toEqual([])
    const [step] = timeline.steps
    expect(step!.rows.map((row) => [row.kind, row.depth, row.label])).toEqual([
      ['slot', 0, 'slot 1'],
      ['nested', 1, '↳ nested slot 1'],
      ['nested', 1, '↳ nested slot 2'],
    ])
    // grep settled at 25 and waited for the slower read before it to commit (program order, T25)
    expect(callsOf(step!)).toEqual([
      ['run_code', 'slot 1', 0, 45, 'ok', 'exclusive'],
      ['read_file', '↳ nested slot 1', 0, 30, 'ok', 'parallel'],
      ['grep', '↳ nested slot 2', 0, 25, 'ok', 'parallel'],
      ['write_note', '↳ nested slot 1', 30, 45, 'ok', 'exclusive'],
    ])
    const [, read, grep, note] = step!.calls
    expect([grep!.settled, grep!.committed]).toEqual([25, 30])
    expect([read!.modeSource, grep!.modeSource, note!.modeSource]).toEqual([
      'recorded',
      'recorded',
      'recorded',
    ])
    expect(step!.barriers.map((b) => [b.callSeq, b.start, b.end, b.firstRow, b.lastRow, b.inferred])).toEqual(
      [
        [step!.calls[0]!.seq, 0, 45, 0, 2, false],
        [note!.seq, 30, 45, 1, 2, false],
      ],
    )
  })

  it('T28, T33: a log whose nested results carry no timings (an older loop) labels the rows under a program lanes, not slots', () => {
    const events = syntheticSessionEvents()
    const nestedCalls = new Set(
      events
        .filter(
          (event) =>
            event.type === 'tool/call' &&
            (event.data as { parentCallId?: unknown }).parentCallId !== undefined,
        )
        .map((event) => event.seq),
    )
    const older = events.map((event) => {
      if (event.type !== 'tool/result' || !nestedCalls.has(event.sourceEventSeqs?.[0] ?? -1)) return event
      const { timings: _timings, ...data } = event.data as unknown as ToolResultEventData
      return { ...event, data }
    })
    const step = buildTimeline(older).steps[0]!
    expect(step.rows.map((row) => row.label)).toEqual([
      'slot 1',
      '↳ nested lane 1',
      '↳ nested lane 2',
      'slot 2',
    ])
    // their bars end when their results were committed: nothing says when the bodies settled
    expect(step.calls.filter((call) => call.depth === 1).map((call) => [call.settled, call.end])).toEqual([
      [undefined, 20],
      [undefined, 25],
      [undefined, 40],
    ])
  })
})

describe('a step whose calls started while the model streamed (eager dispatch)', () => {
  it('T40: calls are drawn from their recorded timings, before their tool/call events, which waited for the message', () => {
    let now = 0
    const session = createMemorySession({ clock: () => new Date(Date.UTC(2025, 0, 1) + now) })
    const call = (callId: string) =>
      session.append('tool/call', {
        turn: 1,
        step: 1,
        callId,
        name: 'read',
        arguments: '{}',
        mode: 'parallel',
      }).seq
    const result = (callSeq: number, callId: string, timings: object) =>
      session.append(
        'tool/result',
        {
          turn: 1,
          step: 1,
          message: createToolResultMessage({ callId, content: 'ok', isError: false }),
          timings,
        },
        { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
      )
    // the model wrote r1 at 0 and r2 at 10 and finished at 50: both tool/call events are appended then
    now = 50
    const r1 = call('r1')
    const r2 = call('r2')
    now = 52
    result(r1, 'r1', { queueMs: 0, runMs: 30, commitMs: 22 }) // ran 0–30
    now = 53
    result(r2, 'r2', { queueMs: 0, runMs: 8, commitMs: 35 }) // ran 10–18
    const [step] = buildTimeline(session.events()).steps
    expect(step!.startTime).toBe('2025-01-01T00:00:00.000Z')
    expect(step!.calls.map((c) => [c.callId, c.start, c.settled, c.committed])).toEqual([
      ['r1', 0, 30, 52],
      ['r2', 10, 18, 53],
    ])
    expect(step!.rows.map((row) => row.label)).toEqual(['slot 1', 'slot 2'])
  })
})

describe('media in results', () => {
  it('T71: a tooltip names an image or audio block by its type, never its base64 data', () => {
    const session = createMemorySession()
    const callSeq = session.append('tool/call', {
      turn: 1,
      step: 1,
      callId: 'a1',
      name: 'record',
      arguments: '{}',
      mode: 'parallel',
    }).seq
    const content = [
      { type: 'text' as const, text: 'two clips:' },
      { type: 'audio' as const, mediaType: 'audio/wav', data: 'UklGRg==' },
      { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ]
    session.append(
      'tool/result',
      { turn: 1, step: 1, message: createToolResultMessage({ callId: 'a1', content, isError: false }) },
      { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
    )
    const [step] = buildTimeline(session.events()).steps
    expect(step!.calls[0]!.result).toEqual({
      text: 'two clips:\n[audio audio/wav]\n[image image/png]',
      omitted: 0,
    })
  })
})

describe('untrusted content', () => {
  it('skips malformed events and notes them; never throws for any array', () => {
    const good = syntheticSessionEvents()
    const hostile: unknown[] = [
      null,
      42,
      { seq: 'x', type: 'tool/call', time: 'now', data: {} },
      { seq: 900, type: 'tool/call', time: '2025-01-01T12:00:00.000Z', data: { turn: 1 } },
      {
        seq: 901,
        type: 'tool/result',
        time: '2025-01-01T12:00:00.000Z',
        data: { message: { content: [{ callId: 'ghost' }] } },
      },
      Object.defineProperty({}, 'type', {
        get() {
          throw new Error('boom')
        },
        enumerable: true,
      }),
      {
        seq: 902,
        type: 'tool/call',
        time: '2025-01-01T12:00:00.000Z',
        data: { turn: 1, step: 1, callId: 'z', name: 'n', parentCallId: 'nobody' },
      },
      ...good,
    ]
    const timeline = buildTimeline(hostile)
    expect(timeline.notes).toEqual([
      'event #1 is not an event object (null)',
      'event #2 is not an event object (the number 42)',
      'tool/call #3 is malformed (seq, time or data); skipped',
      'tool/call seq 900 lacks turn, step, callId or name; skipped',
      'tool/result seq 901 answers no recorded, unanswered call',
      'event #6 could not be read; skipped',
      'tool/call seq 902: its parentCallId "nobody" names no earlier call; drawn as a call of its step',
    ])
    expect(timeline.totals.calls).toBe(9)
  })

  it('cuts long arguments and results at a code point, saying how much was left out', () => {
    const long = `${'x'.repeat(1999)}😀${'y'.repeat(10)}`
    const events = [
      {
        seq: 1,
        type: 'tool/call',
        time: '2025-01-01T00:00:00.000Z',
        data: { turn: 1, step: 1, callId: 'a', name: 't', arguments: long },
      },
    ]
    const [call] = buildTimeline(events).steps[0]!.calls
    // 1999 x, then the emoji would straddle the limit: it is left out whole
    expect(call!.arguments).toEqual({ text: 'x'.repeat(1999), omitted: 11 })
  })

  it('bad arguments are TimelineError INVALID_ARGUMENT', () => {
    for (const [events, options, message] of [
      [{}, {}, /events must be an array of session events, got/],
      [[], null, /options must be an object/],
      [[], { title: 7 }, /options.title must be a string, got the number 7/],
    ] as const) {
      let error: unknown
      try {
        buildTimeline(events as never, options as never)
      } catch (caught) {
        error = caught
      }
      expect(TimelineError.isInstance(error)).toBe(true)
      expect((error as TimelineError).code).toBe('INVALID_ARGUMENT')
      expect((error as TimelineError).message).toMatch(message)
    }
  })
})

/** A step of parallel calls written at chosen times (ms since 2025-01-01), timings as given. */
function recordedStep(
  calls: readonly {
    readonly id: string
    readonly start: number
    readonly settled: number
    readonly committed: number
    readonly parent?: string
  }[],
  extra: (session: ReturnType<typeof createMemorySession>, at: (ms: number) => void) => void = () => {},
): readonly SessionEvent[] {
  let now = 0
  const session = createMemorySession({ clock: () => new Date(Date.UTC(2025, 0, 1) + Math.floor(now)) })
  const at = (ms: number): void => {
    now = ms
  }
  extra(session, at)
  const seqs = new Map<string, number>()
  const appends = [
    ...calls.map((call, order) => ({
      time: call.start,
      order,
      run: () => {
        seqs.set(
          call.id,
          session.append('tool/call', {
            turn: 1,
            step: 1,
            callId: call.id,
            name: call.id,
            arguments: '{}',
            mode: 'parallel',
            ...(call.parent === undefined ? {} : { parentCallId: call.parent }),
          }).seq,
        )
      },
    })),
    ...calls.map((call, order) => ({
      time: call.committed,
      order: calls.length + order,
      run: () => {
        session.append(
          'tool/result',
          {
            turn: 1,
            step: 1,
            message: createToolResultMessage({ callId: call.id, content: 'ok', isError: false }),
            timings: {
              queueMs: 0,
              runMs: call.settled - call.start,
              commitMs: call.committed - call.settled,
            },
          },
          { surfaceOp: 'append', sourceEventSeqs: [seqs.get(call.id)!] },
        )
      },
    })),
  ].sort((a, b) => a.time - b.time || a.order - b.order)
  for (const append of appends) {
    at(append.time)
    append.run()
  }
  return session.events()
}

describe('lanes and the wait for the commit turn', () => {
  it('T25: a call waiting for its commit turn keeps its lane until it commits; the call that took its freed slot goes on another', () => {
    // a pool of 2: a settles at 10 but commits after b at 50; c takes a's slot at 10
    const [step] = buildTimeline(
      recordedStep([
        { id: 'a', start: 0, settled: 10, committed: 50 },
        { id: 'b', start: 0, settled: 50, committed: 50 },
        { id: 'c', start: 10, settled: 20, committed: 50 },
      ]),
    ).steps
    expect(
      step!.calls.map((call) => [call.callId, call.row, call.start, call.settled, call.committed]),
    ).toEqual([
      ['a', 0, 0, 10, 50],
      ['b', 1, 0, 50, 50],
      ['c', 2, 10, 20, 50],
    ])
    // three lanes for two slots: the rows are lanes, not slots
    expect(step!.rows.map((row) => row.label)).toEqual(['lane 1', 'lane 2', 'lane 3'])
    expect(step!.stats).toMatchObject({ peakParallel: 2, peakNested: 0 })
  })

  it('T23: when no call waits to commit, the lanes are the pool’s slots, each freed slot refilled', () => {
    const [step] = buildTimeline(
      recordedStep([
        { id: 'a', start: 0, settled: 10, committed: 10 },
        { id: 'b', start: 0, settled: 50, committed: 50 },
        { id: 'c', start: 10, settled: 20, committed: 50 },
      ]),
    ).steps
    expect(step!.calls.map((call) => call.row)).toEqual([0, 1, 0])
    expect(step!.rows.map((row) => row.label)).toEqual(['slot 1', 'slot 2'])
  })

  it('T33: a slot handed on within the log’s millisecond is not two calls at once', () => {
    // the program p runs two nested calls at a time; n3 takes n1's slot at 40.0, and the log (whole
    // milliseconds, cut) puts n1's end at 40.3: the recorded timings say so, as a real log did
    const [step] = buildTimeline(
      recordedStep([
        { id: 'p', start: 0, settled: 100, committed: 100 },
        { id: 'n1', parent: 'p', start: 10, settled: 40.3, committed: 41 },
        { id: 'n2', parent: 'p', start: 10, settled: 60, committed: 61 },
        { id: 'n3', parent: 'p', start: 40, settled: 70, committed: 71 },
      ]),
    ).steps
    expect(step!.stats).toMatchObject({ peakParallel: 3, peakNested: 2 })
    // the same overlap a millisecond long is real: three nested calls at once
    const [real] = buildTimeline(
      recordedStep([
        { id: 'p', start: 0, settled: 100, committed: 100 },
        { id: 'n1', parent: 'p', start: 10, settled: 41, committed: 41 },
        { id: 'n2', parent: 'p', start: 10, settled: 60, committed: 61 },
        { id: 'n3', parent: 'p', start: 40, settled: 70, committed: 71 },
      ]),
    ).steps
    expect(real!.stats).toMatchObject({ peakParallel: 4, peakNested: 3 })
  })
})

describe('what the page is named after', () => {
  const withMessages = (...texts: unknown[]) =>
    recordedStep([{ id: 'a', start: 5, settled: 6, committed: 6 }], (session, at) => {
      at(1)
      for (const text of texts)
        session.append('user/message', {
          turn: 1,
          step: 1,
          message: { role: 'user', content: typeof text === 'string' ? [{ type: 'text', text }] : text },
          source: 'user',
        })
    })

  it('the first line of the first user message, the file and the first event’s time', () => {
    const timeline = buildTimeline(withMessages('\n  Tour the docs, please.  \nAnd more.', 'Later'), {
      file: 'run.jsonl',
    })
    expect([timeline.title, timeline.subject, timeline.file, timeline.startTime]).toEqual([
      undefined,
      'Tour the docs, please.',
      'run.jsonl',
      '2025-01-01T00:00:00.001Z',
    ])
    expect(buildTimeline(withMessages('x'), { title: 'Friday', file: 'f.jsonl' })).toMatchObject({
      title: 'Friday',
      subject: 'x',
      file: 'f.jsonl',
    })
  })

  it('a long message is cut at 120 code points, never inside a pair; no readable message is no subject', () => {
    const long = `${'a'.repeat(118)}😀😀 and more`
    expect(buildTimeline(withMessages(long)).subject).toBe(`${'a'.repeat(118)}😀…`)
    expect(buildTimeline(withMessages([{ type: 'image' }], '', 'second')).subject).toBe('second')
    expect(buildTimeline(withMessages([{ type: 'image' }])).subject).toBeUndefined()
    const hostile = Object.defineProperty(
      { type: 'user/message', time: '2025-01-01T00:00:00.000Z' },
      'data',
      {
        get() {
          throw new Error('boom')
        },
        enumerable: true,
      },
    )
    expect(buildTimeline([hostile, ...withMessages('fine')]).subject).toBe('fine')
    expect(() => buildTimeline([], { file: 3 } as never)).toThrow(
      /options.file must be a string, got the number 3/,
    )
  })
})
