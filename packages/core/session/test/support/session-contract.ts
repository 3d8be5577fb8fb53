import { expect, it } from 'vitest'
import fc from 'fast-check'
import { createToolResultMessage, type JsonValue } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  verifyToolPairs,
  type AnySession,
  type AppendOptions,
  type SessionEvent,
  type ToolCallEventData,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'

/**
 * The contract every session store keeps, written once for synchronous stores (memory, JSONL) and
 * asynchronous ones (PostgreSQL): every append is awaited (a no-op for a synchronous store) and
 * every refusal is caught whether it is thrown or rejected. Other packages run it against their
 * own store (`packages/session/session-postgres`).
 */
export interface ContractStore {
  readonly name: string
  /** A new, empty session, and (for stores that persist) a way to close it and open the same log again. */
  open(clock: () => Date): Promise<OpenedSession>
  /** Runs of the property test (each opens a session). */
  readonly numRuns: number
}

export interface OpenedSession {
  readonly session: AnySession
  /** Closes `session` and opens the same log with `clock`; undefined for stores that keep nothing. */
  readonly reopen: ((clock: () => Date) => Promise<AnySession>) | undefined
}

/** A clock that advances one second per reading, from 2024-01-01. */
export function steppingClock(): () => Date {
  let tick = 0
  return () => new Date(Date.UTC(2024, 0, 1) + 1000 * tick++)
}

/** The SessionError `fn` throws or rejects with. */
export async function refusal(fn: () => unknown): Promise<SessionError> {
  try {
    await fn()
  } catch (error) {
    if (SessionError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a SessionError')
}

/** Registers the contract's tests; call it inside a `describe`. */
export function describeSessionContract(store: ContractStore): void {
  const open = async (): Promise<AnySession> => (await store.open(steppingClock())).session

  it('T28: append returns the event with a seq increasing by one from 1, and the clock time', async () => {
    const session = await open()
    expect(session.lastSeq).toBe(0)
    const seqs: number[] = []
    for (const type of ['a', 'b', 'c']) seqs.push((await session.append(type, { type })).seq)
    expect(seqs).toEqual([1, 2, 3])
    expect(session.lastSeq).toBe(3)
    const times = session.events().map((event) => event.time)
    for (const time of times) expect(new Date(time).toISOString()).toBe(time)
    // The stepping clock advances a second per reading: one reading per append.
    expect(times.map((time) => Date.parse(time) - Date.parse(times[0]!))).toEqual([0, 1000, 2000])
    await session.close()
  })

  it('T28/T29: tool/call and tool/result events keep their data and options and read back in order', async () => {
    const clock = steppingClock()
    const opened = await store.open(clock)
    let session = opened.session
    const callData: ToolCallEventData = {
      turn: 1,
      step: 1,
      callId: 'call_1',
      name: 'read_file',
      arguments: '{"path":"a"}',
    }
    const call = await session.append('tool/call', callData)
    const resultData: ToolResultEventData = {
      turn: 1,
      step: 1,
      message: createToolResultMessage({ callId: 'call_1', content: 'file body', isError: false }),
      meta: { bytes: 9 },
    }
    const result = await session.append('tool/result', resultData, {
      surfaceOp: 'append',
      sourceEventSeqs: [call.seq],
    })
    expect(result.surfaceOp).toBe('append')
    expect(result.sourceEventSeqs).toEqual([call.seq])
    expect(result.data).toEqual(resultData)
    expect(call).not.toHaveProperty('surfaceOp')
    expect(call).not.toHaveProperty('sourceEventSeqs')
    const other = await session.append('user/message', { text: 'next' }, { surfaceOp: 'replace' })
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    const expected = [call, result, other]
    expect(session.events()).toEqual(expected)
    if (opened.reopen !== undefined) {
      session = await opened.reopen(clock)
      expect(session.events()).toEqual(expected)
      expect(session.lastSeq).toBe(3)
      expect((await session.append('next', null)).seq).toBe(4)
    }
    await session.close()
  })

  it('T28: any sequence of appends reads back in order, before and after reopening', async () => {
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
    await fc.assert(
      fc.asyncProperty(fc.array(append, { maxLength: 8 }), async (steps) => {
        const clock = steppingClock()
        const opened = await store.open(clock)
        let session = opened.session
        for (const [i, step] of steps.entries()) {
          const options: AppendOptions = {
            ...(step.surfaceOp === undefined ? {} : { surfaceOp: step.surfaceOp }),
            ...(step.cite === undefined || i === 0 ? {} : { sourceEventSeqs: [(step.cite % i) + 1] }),
          }
          const event = await session.append(step.type, step.data, options)
          expect(event.seq).toBe(i + 1)
          expect(event.type).toBe(step.type)
          expect(event.data).toEqual(JSON.parse(JSON.stringify(step.data)) as JsonValue)
        }
        const before = session.events()
        expect(before.map((event) => event.seq)).toEqual(steps.map((_, i) => i + 1))
        if (opened.reopen !== undefined) {
          session = await opened.reopen(clock)
          expect(session.events()).toEqual(before)
        }
        await session.close()
      }),
      { numRuns: store.numRuns },
    )
  })

  it('events are deep-frozen snapshots, detached from the caller and from later appends', async () => {
    const session = await open()
    const data = { list: [1, { x: 'y' }] as unknown[] }
    const appended = session.append('t', data)
    // The snapshot is taken by the call itself, before any write completes.
    data.list.push('later')
    ;(data.list[1] as { x: string }).x = 'changed'
    const event = await appended
    expect(event.data).toEqual({ list: [1, { x: 'y' }] })
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen((event.data as { list: unknown[] }).list[1])).toBe(true)
    const view = session.events()
    expect(Object.isFrozen(view)).toBe(true)
    expect(() => (view as unknown[]).push(1)).toThrow(TypeError)
    await session.append('t2', 2)
    expect(view).toHaveLength(1)
    expect(session.events()).toHaveLength(2)
    await session.close()
  })

  it('read filters by afterSeq and types and returns frozen arrays', async () => {
    const session = await open()
    for (const type of ['a', 'b', 'a', 'c', 'a']) await session.append(type, type)
    expect(session.read().map((event) => event.seq)).toEqual([1, 2, 3, 4, 5])
    expect(session.read({ afterSeq: 3 }).map((event) => event.seq)).toEqual([4, 5])
    expect(session.read({ types: ['a'] }).map((event) => event.seq)).toEqual([1, 3, 5])
    expect(session.read({ afterSeq: 1, types: ['a', 'c'] }).map((event) => event.seq)).toEqual([3, 4, 5])
    expect(session.read({ afterSeq: 99 })).toEqual([])
    expect(Object.isFrozen(session.read({ types: ['b'] }))).toBe(true)
    expect((await refusal(() => session.read({ afterSeq: -1 }))).message).toBe(
      'read(options): options.afterSeq must be a non-negative integer, got the number -1',
    )
    expect((await refusal(() => session.read({ types: 'a' as unknown as string[] }))).code).toBe(
      'INVALID_ARGUMENT',
    )
    expect((await refusal(() => session.read({ after: 1 } as never))).message).toMatch(/unknown key "after"/)
    await session.close()
  })

  it('rejects bad appends with clear errors and appends nothing', async () => {
    const session = await open()
    await session.append('first', 1)
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
      const error = await refusal(fn)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(message)
    }
    expect(session.lastSeq).toBe(1)
    expect((await session.append('second', 2)).seq).toBe(2)
    await session.close()
  })

  it('T28: options are read once each, and the event keeps a frozen copy of sourceEventSeqs', async () => {
    const session = await open()
    await session.append('a', 1)
    await session.append('b', 2)
    let reads = 0
    const seqs = [1]
    const options = {
      get surfaceOp(): 'append' {
        reads += 1
        return 'append'
      },
      sourceEventSeqs: seqs,
    }
    const appended = session.append('c', 3, options)
    seqs.push(2)
    const event: SessionEvent = await appended
    expect(reads).toBe(1)
    expect(event.sourceEventSeqs).toEqual([1])
    expect(event.sourceEventSeqs).not.toBe(seqs)
    expect(Object.isFrozen(event.sourceEventSeqs)).toBe(true)
    await session.close()
  })

  it('close is idempotent; append after close is refused with CLOSED and reads keep working', async () => {
    const session = await open()
    await session.append('a', 1)
    await session.close()
    await session.close()
    expect(session.closed).toBe(true)
    const error = await refusal(() => session.append('b', 2))
    expect(error.code).toBe('CLOSED')
    expect(error.message).toBe('append("b", data): the session is closed')
    expect(session.events()).toHaveLength(1)
  })
}
