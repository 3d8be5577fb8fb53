import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createToolResultMessage, snapshotJsonValue, textResultContent } from '@deepseek-ai/dsh-llm'
import {
  createAsyncSession,
  createMemorySession,
  toolCallEventData,
  toolResultEventData,
  type SessionEvent,
  type ToolResultEventData,
  type ToolResultEventFields,
} from '@deepseek-ai/dsh-session'
import { isProvenEventData } from '../src/tool-events/proven-data.ts'
import { loadSecondCopy } from './support/second-copy.ts'
import { callFields, resultFields } from './support/tool-event-arbitraries.ts'
import { thrown } from './support/thrown.ts'

/** What the agent loop appended before T58: the data it built, walked and copied by `append`. */
function genericResultData(fields: ToolResultEventFields): Record<string, unknown> {
  const { turn, step, callId, content, isError, error, meta, timings, rewrittenArguments } = fields
  return {
    turn,
    step,
    message: createToolResultMessage({ callId, content, isError }),
    ...(error === undefined ? {} : { error: { name: error.name, code: error.code } }),
    ...(meta === undefined ? {} : { meta }),
    ...(timings === undefined ? {} : { timings }),
    ...(rewrittenArguments === undefined ? {} : { rewrittenArguments }),
  }
}

/** The data as `append` stores it from the generic path (copied) and from the builder (kept). */
function bothWays(type: string, generic: unknown, built: unknown): [SessionEvent, SessionEvent] {
  const session = createMemorySession({ clock: () => new Date(0) })
  return [session.append(type, generic), session.append(type, built)]
}

describe('T58: tool event data built by the session is kept by reference', () => {
  it('T58: toolResultEventData equals, field for field and in the file order, what append made of the generic data (property)', () => {
    fc.assert(
      fc.property(resultFields, (fields) => {
        const built = toolResultEventData(fields)
        const [generic, kept] = bothWays('tool/result', genericResultData(fields), built)
        expect(kept.data).toBe(built)
        expect(kept.data).toEqual(generic.data)
        expect(JSON.stringify(kept.data)).toBe(JSON.stringify(generic.data))
        expect(snapshotJsonValue(kept.data)).toEqual({ ok: true, value: generic.data })
      }),
      { numRuns: 300 },
    )
  })

  it('T58: toolCallEventData equals what append made of the same fields written as plain data (property)', () => {
    fc.assert(
      fc.property(callFields, (fields) => {
        const built = toolCallEventData(fields)
        const [generic, kept] = bothWays('tool/call', fields, built)
        expect(kept.data).toBe(built)
        expect(kept.data).toEqual(generic.data)
        expect(Object.keys(kept.data as object)).toEqual(
          [
            'turn',
            'step',
            'callId',
            'modelCallId',
            'name',
            'arguments',
            'parentCallId',
            'mode',
            'repaired',
            'replayArguments',
            'idempotencyKey',
          ].filter((key) => (fields as unknown as Record<string, unknown>)[key] !== undefined),
        )
      }),
      { numRuns: 300 },
    )
  })

  it('T58: the call shapes a step records (mode, idempotencyKey, both or neither) keep the file order and equal the generic data', () => {
    // The builder makes these shapes with one literal each; every other shape key by key.
    const shapes: { mode?: 'parallel' | 'exclusive'; idempotencyKey?: string }[] = [
      {},
      { mode: 'parallel' },
      { idempotencyKey: 's:c1' },
      { mode: 'exclusive', idempotencyKey: 's:c1' },
    ]
    for (const extra of shapes) {
      const fields = { turn: 2, step: 3, callId: 'c1', name: 'add', arguments: '{"a":1}', ...extra }
      const built = toolCallEventData(fields)
      const [generic, kept] = bothWays('tool/call', fields, built)
      expect(kept.data).toBe(built)
      expect(JSON.stringify(kept.data)).toBe(JSON.stringify(generic.data))
      expect(Object.keys(built)).toEqual(Object.keys(generic.data as object))
      expect(Object.keys(built)).toEqual([
        'turn',
        'step',
        'callId',
        'name',
        'arguments',
        ...Object.keys(extra),
      ])
      expect(Object.isFrozen(built)).toBe(true)
    }
  })

  it('T58: the built data is deep-frozen and detached: changing the fields afterwards changes nothing', () => {
    const content = [{ type: 'text' as const, text: 'before' }]
    const meta = { tags: ['a'] }
    const timings = { queueMs: 1, runMs: 2, commitMs: 3 }
    const fields = { turn: 1, step: 1, callId: 'c1', content, isError: false, meta, timings }
    const data = toolResultEventData(fields)
    const event = createMemorySession().append('tool/result', data)
    content[0]!.text = 'after'
    content.push({ type: 'text', text: 'more' })
    meta.tags.push('b')
    timings.runMs = 99
    const stored = event.data as unknown as ReturnType<typeof genericResultData> & {
      message: { content: [{ content: unknown[] }] }
      meta: { tags: string[] }
      timings: { runMs: number }
    }
    expect(stored.message.content[0].content).toEqual([{ type: 'text', text: 'before' }])
    expect(stored.meta.tags).toEqual(['a'])
    expect(stored.timings.runMs).toBe(2)
    const frozen = (value: unknown): boolean =>
      typeof value !== 'object' || value === null
        ? true
        : Object.isFrozen(value) && Object.values(value).every(frozen)
    expect(frozen(event)).toBe(true)
  })

  it('T58: results with equal timings share one frozen timings object, and each result keeps its own numbers (property)', () => {
    // A step's results mostly record the same tenths of a millisecond: the builder reuses the last
    // frozen timings when all three numbers are equal. Few values, so equal and unequal neighbours
    // (one number apart) both come up often.
    const tenth = fc.constantFrom(0, -0, 0.1, 0.2)
    const timings = fc.record({ queueMs: tenth, runMs: tenth, commitMs: tenth })
    fc.assert(
      fc.property(fc.array(timings, { minLength: 2, maxLength: 12 }), (list) => {
        const session = createMemorySession()
        const built = list.map((given) =>
          toolResultEventData({
            turn: 1,
            step: 1,
            callId: 'c',
            content: 'ok',
            isError: false,
            timings: given,
          }),
        )
        built.forEach((data, index) => {
          const given = list[index]!
          // -0 is recorded as 0, as JSON writes it
          expect(data.timings).toEqual({
            queueMs: given.queueMs + 0,
            runMs: given.runMs + 0,
            commitMs: given.commitMs + 0,
          })
          expect(Object.isFrozen(data.timings)).toBe(true)
          expect(data.timings).not.toBe(given)
          expect(session.append('tool/result', data).data).toBe(data)
        })
        for (let index = 1; index < built.length; index++) {
          const same = JSON.stringify(built[index]!.timings) === JSON.stringify(built[index - 1]!.timings)
          expect(built[index]!.timings === built[index - 1]!.timings).toBe(same)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('T58: a getter in the fields runs once, and the event keeps what it answered then', () => {
    let reads = 0
    const block = {
      type: 'text' as const,
      get text(): string {
        reads += 1
        return `read ${reads}`
      },
    }
    const data = toolResultEventData({ turn: 1, step: 1, callId: 'c1', content: [block], isError: false })
    expect(reads).toBe(1)
    const stored = createMemorySession().append('tool/result', data).data as {
      message: { content: [{ content: [{ text: string }] }] }
    }
    expect(stored.message.content[0].content[0].text).toBe('read 1')
    expect(stored.message.content[0].content[0].text).toBe('read 1')
  })

  it('T58: a Proxy anywhere in the fields is refused before any of its traps runs', () => {
    let traps = 0
    const spy = <T extends object>(target: T): T =>
      new Proxy(target, {
        get: (t, key, receiver) => {
          traps += 1
          return Reflect.get(t, key, receiver)
        },
        getOwnPropertyDescriptor: (t, key) => {
          traps += 1
          return Reflect.getOwnPropertyDescriptor(t, key)
        },
      })
    const base = { turn: 1, step: 1, callId: 'c1', content: 'ok', isError: false }
    const cases: [unknown, RegExp][] = [
      [spy(base), /fields is a Proxy/],
      [{ ...base, content: spy([{ type: 'text', text: 'x' }]) }, /fields\.content is a Proxy/],
      [{ ...base, content: [spy({ type: 'text', text: 'x' })] }, /fields\.content\[0\] is a Proxy/],
      [{ ...base, timings: spy({ queueMs: 1, runMs: 1, commitMs: 1 }) }, /fields\.timings is a Proxy/],
      [{ ...base, error: spy({ name: 'n', code: 'c' }) }, /fields\.error is a Proxy/],
      [{ ...base, meta: spy({ a: 1 }) }, /fields\.meta is a Proxy/],
    ]
    for (const [fields, message] of cases) {
      const error = thrown(() => toolResultEventData(fields as ToolResultEventFields))
      expect(error.message).toMatch(message)
    }
    const call = { turn: 1, step: 1, callId: 'c', name: 'n', arguments: '{}' }
    expect(thrown(() => toolCallEventData(spy(call))).message).toMatch(/fields is a Proxy/)
    expect(
      thrown(() => toolCallEventData({ ...call, repaired: spy({ name: 'n', arguments: '{}', by: 'x' }) }))
        .message,
    ).toMatch(/fields\.repaired is a Proxy/)
    expect(traps).toBe(0)
  })

  it('T58: fields that are not what the event holds are refused, naming the field', () => {
    const base = { turn: 1, step: 1, callId: 'c1', content: 'ok', isError: false }
    const refused: [Record<string, unknown>, string, RegExp][] = [
      [{ ...base, turn: '1' }, 'INVALID_ARGUMENT', /fields\.turn must be a number, got the string "1"/],
      [{ ...base, step: Number.NaN }, 'NOT_JSON', /fields\.step is NaN/],
      [{ ...base, callId: '' }, 'INVALID_ARGUMENT', /fields\.callId must not be empty/],
      [{ ...base, isError: 1 }, 'INVALID_ARGUMENT', /fields\.isError must be a boolean/],
      [
        { ...base, content: [{ type: 'video' }] },
        'INVALID_ARGUMENT',
        /fields\.content\[0\]\.type must be "text", "image" or "audio"/,
      ],
      [
        { ...base, content: [{ type: 'audio', mediaType: 'image/png', data: 'AAAA' }] },
        'INVALID_ARGUMENT',
        /fields\.content\[0\]\.mediaType must be an audio media type/,
      ],
      [
        { ...base, content: [{ type: 'audio', mediaType: 'audio/wav', data: 'not base64!' }] },
        'INVALID_ARGUMENT',
        /fields\.content\[0\]\.data must be base64/,
      ],
      [
        { ...base, content: [{ type: 'image', mediaType: 'image/png' }] },
        'INVALID_ARGUMENT',
        /must carry base64 "data" or a "url"/,
      ],
      [{ ...base, meta: { n: 1n } }, 'NOT_JSON', /fields\.meta\.n is a BigInt/],
      [
        { ...base, timings: { queueMs: 1, runMs: Infinity, commitMs: 0 } },
        'NOT_JSON',
        /fields\.timings\.runMs is Infinity/,
      ],
      [{ ...base, error: { name: 'n' } }, 'INVALID_ARGUMENT', /fields\.error\.code must be a string/],
    ]
    for (const [fields, code, message] of refused) {
      const error = thrown(() => toolResultEventData(fields as unknown as ToolResultEventFields))
      expect([error.code, error.message]).toEqual([code, expect.stringMatching(message)])
    }
    const boom = (): never => {
      throw new Error('boom')
    }
    const getterThrows = Object.defineProperty({ ...base }, 'step', { get: boom, enumerable: true })
    expect(thrown(() => toolResultEventData(getterThrows)).message).toMatch(
      /fields\.step has a getter that threw/,
    )
    const blockThrows = [Object.defineProperty({ type: 'text' }, 'text', { get: boom, enumerable: true })]
    expect(thrown(() => toolResultEventData({ ...base, content: blockThrows } as never)).message).toMatch(
      /fields\.content\[0\]\.text has a getter that threw/,
    )
    const meta = thrown(() => toolResultEventData({ ...base, meta: { n: 1n } } as never))
    expect(meta.details.jsonPath).toBe('$.meta.n')
    const call = { turn: 1, step: 1, callId: 'c', name: 'n', arguments: '{}' }
    expect(thrown(() => toolCallEventData({ ...call, mode: 'eager' } as never)).message).toMatch(
      /fields\.mode must be "parallel" or "exclusive"/,
    )
    expect(thrown(() => toolCallEventData({ ...call, arguments: {} } as never)).message).toMatch(
      /fields\.arguments must be a string, got an object/,
    )
  })
})

describe('T58: nothing but the builders data is taken without the full check', () => {
  const fields = { turn: 1, step: 1, callId: 'c1', content: 'ok', isError: false }

  it('T58: a plain object of the same shape, even a frozen one, is walked and copied', () => {
    const forged = Object.freeze({ ...toolResultEventData(fields) })
    expect(isProvenEventData(forged)).toBe(false)
    const event = createMemorySession().append('tool/result', forged)
    expect(event.data).not.toBe(forged)
    expect(event.data).toEqual(forged)
  })

  it('T58: a forged "proven" value with a getter is walked: the getter runs once and its one answer is stored', () => {
    let reads = 0
    const forged = Object.freeze(
      Object.defineProperty({ turn: 1 }, 'step', {
        enumerable: true,
        get: () => (reads += 1),
      }),
    )
    const event = createMemorySession().append('tool/result', forged)
    expect(reads).toBe(1)
    expect(event.data).toEqual({ turn: 1, step: 1 })
    expect((event.data as { step: number }).step).toBe(1)
  })

  it('T58: a Proxy around built data is not taken for it: append refuses it as not JSON, without running a trap', () => {
    let traps = 0
    const proxy = new Proxy(toolResultEventData(fields), {
      get: (target, key, receiver) => {
        traps += 1
        return Reflect.get(target, key, receiver)
      },
    })
    expect(isProvenEventData(proxy)).toBe(false)
    const error = thrown(() => createMemorySession().append('tool/result', proxy))
    expect([error.code, error.message]).toEqual(['NOT_JSON', 'append("tool/result", data): data is a Proxy'])
    expect(traps).toBe(0)
  })

  it('T58: built data inside another value is walked like any frozen value, and a copy of it is not proven', () => {
    const built = toolResultEventData(fields)
    const event = createMemorySession().append('wrapper', { inner: built })
    expect((event.data as { inner: unknown }).inner).not.toBe(built)
    expect((event.data as { inner: unknown }).inner).toEqual(built)
    expect(isProvenEventData((event.data as { inner: unknown }).inner)).toBe(false)
    expect(isProvenEventData(structuredClone(built))).toBe(false)
  })

  it("T58: data built by a second copy of the package is walked by this one, and this copy's by the second", async () => {
    const second = await loadSecondCopy()
    const theirs = second.toolResultEventData(fields)
    const ours = toolResultEventData(fields)
    expect(createMemorySession().append('tool/result', theirs).data).not.toBe(theirs)
    expect(second.createMemorySession().append('tool/result', ours).data).not.toBe(ours)
    expect(second.createMemorySession().append('tool/result', theirs).data).toBe(theirs)
    expect(createMemorySession().append('tool/result', theirs).data).toEqual(theirs)
  })

  it("T58: content dsh-llm's textResultContent built is kept by reference; a frozen look-alike, a proxy of it or another copy's is copied", async () => {
    const built = textResultContent('{"sum":3}')
    const resultContent = (data: ToolResultEventData): unknown => data.message.content[0]!.content
    expect(resultContent(toolResultEventData({ ...fields, content: built }))).toBe(built)
    const lookAlike = Object.freeze([Object.freeze({ type: 'text' as const, text: '{"sum":3}' })])
    const copied = resultContent(toolResultEventData({ ...fields, content: lookAlike }))
    expect(copied).not.toBe(lookAlike)
    expect(copied).toEqual(built)
    expect(thrown(() => toolResultEventData({ ...fields, content: new Proxy(built, {}) })).message).toMatch(
      /fields\.content is a Proxy/,
    )
    const second = await loadSecondCopy()
    const theirs = second.toolResultEventData({ ...fields, content: built })
    expect(resultContent(theirs)).not.toBe(built)
    expect(resultContent(theirs)).toEqual(built)
  })

  it('T58: the asynchronous session keeps built data by reference too', async () => {
    const written: SessionEvent[] = []
    const session = createAsyncSession({ write: async (events) => void written.push(...events) })
    const data = toolCallEventData({ turn: 1, step: 1, callId: 'c', name: 'n', arguments: '{}' })
    const event = await session.append('tool/call', data)
    expect(event.data).toBe(data)
    expect(written[0]?.data).toBe(data)
  })
})
