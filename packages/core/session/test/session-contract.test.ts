import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage, type JsonValue } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  createMemorySession,
  verifyToolPairs,
  type AppendOptions,
  type Session,
  type ToolCallEventData,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { STORES, steppingClock } from './support/stores.ts'
import { useTempDirs } from './support/temp-dir.ts'

function thrown(fn: () => unknown): SessionError {
  try {
    fn()
  } catch (error) {
    if (SessionError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a SessionError')
}

describe.each(STORES)('session contract: $name store', (store) => {
  const tempDir = useTempDirs()
  const open = (): Session => store.create(tempDir(), steppingClock())

  it('T28: append returns the event with a seq increasing by one from 1, and the clock time', () => {
    const session = open()
    expect(session.lastSeq).toBe(0)
    const seqs = ['a', 'b', 'c'].map((type) => session.append(type, { type }).seq)
    expect(seqs).toEqual([1, 2, 3])
    expect(session.lastSeq).toBe(3)
    const times = session.events().map((event) => event.time)
    // The stepping clock advances a second per reading; the file store also stamps its header.
    for (const time of times) expect(new Date(time).toISOString()).toBe(time)
    expect(times.map((time) => Date.parse(time) - Date.parse(times[0]!))).toEqual([0, 1000, 2000])
    session.close()
  })

  it('T28/T29: tool/call and tool/result events keep their data and options and read back in order', () => {
    const dir = tempDir()
    const clock = steppingClock()
    let session = store.create(dir, clock)
    const callData: ToolCallEventData = {
      turn: 1,
      step: 1,
      callId: 'call_1',
      name: 'read_file',
      arguments: '{"path":"a"}',
    }
    const call = session.append('tool/call', callData)
    const resultData: ToolResultEventData = {
      turn: 1,
      step: 1,
      message: createToolResultMessage({ callId: 'call_1', content: 'file body', isError: false }),
      meta: { bytes: 9 },
    }
    const result = session.append('tool/result', resultData, {
      surfaceOp: 'append',
      sourceEventSeqs: [call.seq],
    })
    expect(result.surfaceOp).toBe('append')
    expect(result.sourceEventSeqs).toEqual([call.seq])
    expect(result.data).toEqual(resultData)
    expect(call).not.toHaveProperty('surfaceOp')
    expect(call).not.toHaveProperty('sourceEventSeqs')
    const other = session.append('user/message', { text: 'next' }, { surfaceOp: 'replace' })
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    const expected = [call, result, other]
    expect(session.events()).toEqual(expected)
    if (store.reopen !== undefined) {
      session = store.reopen(session, dir, clock)
      expect(session.events()).toEqual(expected)
      expect(session.lastSeq).toBe(3)
      expect(session.append('next', null).seq).toBe(4)
    }
    session.close()
  })

  it('T28: any sequence of appends reads back in order, before and after reopening', () => {
    const append = fc.record(
      {
        type: fc.string({ minLength: 1, maxLength: 12 }),
        data: fc.jsonValue({ maxDepth: 3 }),
        surfaceOp: fc.constantFrom('append', 'replace', 'remove') as fc.Arbitrary<
          'append' | 'replace' | 'remove'
        >,
        cite: fc.nat(),
      },
      { requiredKeys: ['type', 'data'] },
    )
    fc.assert(
      fc.property(fc.array(append, { maxLength: 8 }), (steps) => {
        const dir = tempDir()
        const clock = steppingClock()
        let session = store.create(dir, clock)
        for (const [i, step] of steps.entries()) {
          const options: AppendOptions = {
            ...(step.surfaceOp === undefined ? {} : { surfaceOp: step.surfaceOp }),
            ...(step.cite === undefined || i === 0 ? {} : { sourceEventSeqs: [(step.cite % i) + 1] }),
          }
          const event = session.append(step.type, step.data, options)
          expect(event.seq).toBe(i + 1)
          expect(event.type).toBe(step.type)
          expect(event.data).toEqual(JSON.parse(JSON.stringify(step.data)) as JsonValue)
        }
        const before = session.events()
        expect(before.map((event) => event.seq)).toEqual(steps.map((_, i) => i + 1))
        if (store.reopen !== undefined) {
          session = store.reopen(session, dir, clock)
          expect(session.events()).toEqual(before)
        }
        session.close()
      }),
      { numRuns: store.name === 'jsonl (fsync)' ? 10 : 40 },
    )
  })

  it('events are deep-frozen snapshots, detached from the caller and from later appends', () => {
    const session = open()
    const data = { list: [1, { x: 'y' }] as unknown[] }
    const event = session.append('t', data)
    data.list.push('later')
    ;(data.list[1] as { x: string }).x = 'changed'
    expect(event.data).toEqual({ list: [1, { x: 'y' }] })
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen((event.data as { list: unknown[] }).list[1])).toBe(true)
    const view = session.events()
    expect(Object.isFrozen(view)).toBe(true)
    expect(() => (view as unknown[]).push(1)).toThrow(TypeError)
    session.append('t2', 2)
    expect(view).toHaveLength(1)
    expect(session.events()).toHaveLength(2)
    session.close()
  })

  it('read filters by afterSeq and types and returns frozen arrays', () => {
    const session = open()
    for (const type of ['a', 'b', 'a', 'c', 'a']) session.append(type, type)
    expect(session.read().map((event) => event.seq)).toEqual([1, 2, 3, 4, 5])
    expect(session.read({ afterSeq: 3 }).map((event) => event.seq)).toEqual([4, 5])
    expect(session.read({ types: ['a'] }).map((event) => event.seq)).toEqual([1, 3, 5])
    expect(session.read({ afterSeq: 1, types: ['a', 'c'] }).map((event) => event.seq)).toEqual([3, 4, 5])
    expect(session.read({ afterSeq: 99 })).toEqual([])
    expect(Object.isFrozen(session.read({ types: ['b'] }))).toBe(true)
    expect(thrown(() => session.read({ afterSeq: -1 })).message).toBe(
      'read(options): options.afterSeq must be a non-negative integer, got the number -1',
    )
    expect(thrown(() => session.read({ types: 'a' as unknown as string[] })).code).toBe('INVALID_ARGUMENT')
    expect(thrown(() => session.read({ after: 1 } as never)).message).toMatch(/unknown key "after"/)
    session.close()
  })

  it('rejects bad appends with clear errors and appends nothing', () => {
    const session = open()
    session.append('first', 1)
    const cases: [() => unknown, string, RegExp][] = [
      [() => session.append('', 1), 'INVALID_ARGUMENT', /^append\("", data\): type must not be empty$/],
      [
        () => session.append(7 as unknown as string, 1),
        'INVALID_ARGUMENT',
        /type must be a string, got the number 7/,
      ],
      [
        () => session.append('x'.repeat(201), 1),
        'INVALID_ARGUMENT',
        /type must be at most 200 characters, got 201/,
      ],
      [
        () => session.append('tool/result', { meta: { x: 1n } }),
        'NOT_JSON',
        /^append\("tool\/result", data\): data\.meta\.x is a BigInt$/,
      ],
      [() => session.append('t', undefined), 'NOT_JSON', /: data is undefined$/],
      [
        () => session.append('t', 1, { surfaceOp: 'insert' as never }),
        'INVALID_ARGUMENT',
        /options\.surfaceOp must be one of "append", "replace", "remove", got the string "insert"/,
      ],
      [
        () => session.append('t', 1, { sourceEventSeqs: [2] }),
        'INVALID_ARGUMENT',
        /options\.sourceEventSeqs\[0\] is 2, which is not an earlier event than seq 2/,
      ],
      [
        () => session.append('t', 1, { sourceEventSeqs: [0] }),
        'INVALID_ARGUMENT',
        /\[0\] must be an integer ≥ 1/,
      ],
      [() => session.append('t', 1, { sourceEventSeqs: [1, 1] }), 'INVALID_ARGUMENT', /repeats seq 1/],
      [() => session.append('t', 1, { sourceEventSeqs: 1 as never }), 'INVALID_ARGUMENT', /must be an array/],
      [
        () => session.append('t', 1, { surfaceop: 'append' } as never),
        'INVALID_ARGUMENT',
        /unknown key "surfaceop"/,
      ],
      [
        () => session.append('t', 1, null as never),
        'INVALID_ARGUMENT',
        /options must be an object, got null/,
      ],
      [
        () => session.append('t', 1, { surfaceOp: 'append', extra: 1 } as never),
        'INVALID_ARGUMENT',
        /unknown key "extra"/,
      ],
      [
        () => session.append('t', 1, Object.defineProperty({}, 'surfaceOp', { value: 'append' }) as never),
        'INVALID_ARGUMENT',
        /options\.surfaceOp is a non-enumerable property/,
      ],
      [
        () => session.append('t', 1, { [Symbol.for('x')]: 1 } as never),
        'INVALID_ARGUMENT',
        /options has a symbol-keyed property/,
      ],
      [
        () => session.append('t', 1, new Proxy({}, {}) as never),
        'INVALID_ARGUMENT',
        /options must be an object, got a Proxy/,
      ],
      [
        () =>
          session.append('t', 1, {
            surfaceOp: new Proxy(
              {},
              {
                getPrototypeOf: () => {
                  throw new Error('trap ran')
                },
              },
            ),
          } as never),
        'INVALID_ARGUMENT',
        /options\.surfaceOp is a Proxy/,
      ],
      [
        () => session.append('t', 1, { sourceEventSeqs: new Proxy([1], {}) } as never),
        'INVALID_ARGUMENT',
        /options\.sourceEventSeqs is a Proxy/,
      ],
      [
        () =>
          session.append('t', 1, {
            get surfaceOp(): string {
              throw new Error('getter')
            },
          } as never),
        'INVALID_ARGUMENT',
        /options\.surfaceOp has a getter that threw \(Error: getter\)/,
      ],
      [
        () => session.append('t', 1, { sourceEventSeqs: Object.assign([1, 1], { 1: undefined }) } as never),
        'INVALID_ARGUMENT',
        /options\.sourceEventSeqs\[1\] must be an integer ≥ 1, got undefined/,
      ],
    ]
    for (const [fn, code, message] of cases) {
      const error = thrown(fn)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(message)
    }
    expect(session.lastSeq).toBe(1)
    expect(session.append('second', 2).seq).toBe(2)
    session.close()
  })

  it('T28: options are read once each, and the event keeps a frozen copy of sourceEventSeqs', () => {
    const session = open()
    session.append('a', 1)
    session.append('b', 2)
    let reads = 0
    const seqs = [1]
    const options = {
      get surfaceOp(): 'append' {
        reads += 1
        return 'append'
      },
      sourceEventSeqs: seqs,
    }
    const event = session.append('c', 3, options)
    expect(reads).toBe(1)
    expect(event.sourceEventSeqs).toEqual([1])
    expect(event.sourceEventSeqs).not.toBe(seqs)
    expect(Object.isFrozen(event.sourceEventSeqs)).toBe(true)
    seqs.push(2)
    expect(event.sourceEventSeqs).toEqual([1])
    session.close()
  })

  it('close is idempotent; append after close throws CLOSED and reads keep working', () => {
    const session = open()
    session.append('a', 1)
    session.close()
    session.close()
    expect(session.closed).toBe(true)
    const error = thrown(() => session.append('b', 2))
    expect(error.code).toBe('CLOSED')
    expect(error.message).toBe('append("b", data): the session is closed')
    expect(session.events()).toHaveLength(1)
  })
})

describe('memory session options', () => {
  it('validates its options and the clock result', () => {
    expect(thrown(() => createMemorySessionWith({ clock: 5 })).message).toMatch(
      /options\.clock must be a function/,
    )
    expect(thrown(() => createMemorySessionWith({ clok: () => new Date() })).message).toMatch(
      /unknown key "clok"/,
    )
    const session = createMemorySessionWith({ clock: () => new Date(Number.NaN) })
    const error = thrown(() => session.append('t', 1))
    expect(error.message).toBe(
      'append("t", data): the session clock returned an instance of Date, not a valid Date',
    )
    expect(session.lastSeq).toBe(0)
  })
})

describe('event times', () => {
  it('T28: the time is read through Date.prototype, so a Date cannot pass off another string', () => {
    const forged = Object.assign(new Date(Date.UTC(2024, 0, 1)), { toISOString: () => 'not a time' })
    const session = createMemorySession({ clock: () => forged })
    expect(session.append('t', 1).time).toBe('2024-01-01T00:00:00.000Z')
  })

  it('T28: each distinct millisecond is formatted, and every event gets its own clock reading', () => {
    const readings = [0, 0, 1, 1000, 0]
    const session = createMemorySession({ clock: () => new Date(readings.shift()!) })
    const times = [1, 2, 3, 4, 5].map((i) => session.append('t', i).time)
    expect(times).toEqual([
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.001Z',
      '1970-01-01T00:00:01.000Z',
      '1970-01-01T00:00:00.000Z',
    ])
  })
})

function createMemorySessionWith(options: unknown): Session {
  return createMemorySession(options as never)
}
