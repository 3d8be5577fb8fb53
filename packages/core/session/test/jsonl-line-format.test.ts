import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  openJsonlSession,
  readJsonlSession,
  toolCallEventData,
  toolResultEventData,
  type AppendOptions,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { formatEventLine } from '../src/jsonl/jsonl-format.ts'
import { quoteJsonString } from '../src/tool-events/json-string.ts'
import { callFields, resultFields, text } from './support/tool-event-arbitraries.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-line-format-'))
  dirs.push(dir)
  return join(dir, 'session.jsonl')
}

/** What an append's options can be: none, a surface op, cited seqs (of the events before it), both. */
const options = (earlier: number): fc.Arbitrary<AppendOptions | undefined> =>
  fc.option(
    fc.record(
      {
        surfaceOp: fc.constantFrom('append' as const, 'replace' as const, 'remove' as const),
        sourceEventSeqs: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, earlier) }), {
          maxLength: earlier === 0 ? 0 : 3,
        }),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  )

/** Data of every kind `append` takes: built tool event data, or any JSON value. */
const data = fc.oneof(
  callFields.map((fields) => toolCallEventData(fields) as unknown),
  resultFields.map((fields) => toolResultEventData(fields) as unknown),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
)

/** Appends, in order, with options citing only earlier events; the events the session built. */
const appends = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom('tool/call', 'tool/result'),
      text.filter((t) => t !== ''),
    ),
    data,
    fc.nat(),
  ),
  {
    minLength: 1,
    maxLength: 6,
  },
)

function build(
  session: { append: (type: string, data: unknown, options?: AppendOptions) => SessionEvent },
  items: readonly (readonly [string, unknown, number])[],
): SessionEvent[] {
  return items.map(([type, value, pick], index) => {
    const seqs = index === 0 ? undefined : [1 + (pick % index)]
    const appendOptions: AppendOptions | undefined =
      pick % 4 === 0
        ? undefined
        : pick % 4 === 1
          ? { surfaceOp: 'append' }
          : pick % 4 === 2
            ? { sourceEventSeqs: seqs ?? [] }
            : { surfaceOp: 'remove', ...(seqs === undefined ? {} : { sourceEventSeqs: seqs }) }
    return session.append(type, value, appendOptions)
  })
}

describe('T58: a JSONL line is the JSON text of its event', () => {
  it('T58: formatEventLine writes exactly what JSON.stringify writes, for built tool data and any other data (property)', () => {
    fc.assert(
      fc.property(appends, (items) => {
        const session = createMemorySession()
        for (const event of build(session, items)) {
          expect(formatEventLine(event)).toBe(`${JSON.stringify(event)}\n`)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('T58: the options part of the line is what JSON.stringify writes, for every surface op and list of cited seqs (property)', () => {
    fc.assert(
      fc.property(fc.array(options(5), { minLength: 1, maxLength: 4 }), (list) => {
        const session = createMemorySession()
        for (let index = 0; index < 5; index++) session.append('note', index)
        for (const appendOptions of list) {
          const event = session.append(
            'tool/call',
            toolCallEventData({ turn: 1, step: 1, callId: 'c', name: 'n', arguments: '{}' }),
            appendOptions,
          )
          expect(formatEventLine(event)).toBe(`${JSON.stringify(event)}\n`)
        }
      }),
    )
  })

  it("T58: a session file written with durability 'write' and 'step' holds one JSON.stringify line per event and reads back equal (property)", () => {
    fc.assert(
      fc.property(appends, fc.constantFrom('write' as const, 'step' as const), (items, durability) => {
        const path = tempFile()
        const session = openJsonlSession(path, { durability })
        const events = build(session, items)
        session.close()
        const lines = readFileSync(path, 'utf8').split('\n').slice(1, -1)
        expect(lines).toEqual(events.map((event) => JSON.stringify(event)))
        expect(readJsonlSession(path).events).toEqual(events)
      }),
      { numRuns: 60 },
    )
  })

  it('T58: a string in a line is quoted exactly as JSON.stringify quotes it: controls, quotes, backslashes, lone and paired surrogates, short and long (property)', () => {
    // Characters next to every boundary the scan tests, so a short string hits each of them.
    const edge = fc.constantFrom(
      '\u0000',
      '\u001f',
      ' ',
      '"',
      '\\',
      '/',
      '\u007f',
      '\u2028',
      '\ud7ff',
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\ue000',
      '\ud83d\ude00',
      'a',
    )
    const strings = fc.oneof(
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.array(edge, { maxLength: 30 }).map((parts) => parts.join('')),
      fc.string({ maxLength: 30, unit: 'grapheme-ascii' }),
    )
    fc.assert(
      fc.property(strings, (value) => {
        expect(quoteJsonString(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 2000 },
    )
  })

  it("T58: commits of 'step' sessions, long then short, ASCII and multibyte, over and under the reused buffer's size, write exactly their lines", () => {
    const path = tempFile()
    const session = openJsonlSession(path, { durability: 'step' })
    const expected: SessionEvent[] = []
    const commits: (readonly string[])[] = [
      Array.from({ length: 200 }, (_, index) => `é😀 ${index} ${'é'.repeat(400)}`),
      ['a'],
      ['\u2028 ünïcödé \ud83d\ude00'],
      ['y'.repeat(300_000)],
      ['short after long', 'z'],
      [],
      ['last'],
    ]
    for (const texts of commits) {
      for (const text of texts) expected.push(session.append('note', { text }))
      session.commit()
      const lines = readFileSync(path, 'utf8').split('\n').slice(1, -1)
      expect(lines).toEqual(expected.map((event) => JSON.stringify(event)))
    }
    session.close()
    expect(readJsonlSession(path).events).toEqual(expected)
  })

  it('T58: the time is written as JSON.stringify writes it, for the earliest and latest dates a clock can give', () => {
    for (const ms of [-8.64e15, -1, 0, 8.64e15]) {
      const session = createMemorySession({ clock: () => new Date(ms) })
      for (const type of ['tool/call', 'tool/result', 'note "quoted"\n']) {
        const event = session.append(type, { at: ms })
        expect(formatEventLine(event)).toBe(`${JSON.stringify(event)}\n`)
      }
    }
  })

  it('T58: meta, timings, error and rewritten arguments of a built result are written in the order the data holds them', () => {
    const meta: JsonValue = { a: [1, '\u2028', { b: null }], '"k"': -0 }
    const data = toolResultEventData({
      turn: 2,
      step: 3,
      callId: 'c\n1',
      content: [
        { type: 'text', text: 'line\n"q"' },
        { type: 'image', mediaType: 'image/png', url: 'https://x/y' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        { type: 'audio', mediaType: 'audio/wav', data: 'AAAA' },
      ],
      isError: true,
      error: { name: 'Timeout', code: 'TIMEOUT' },
      meta,
      timings: { queueMs: 0.5, runMs: 1e21, commitMs: -0 },
      rewrittenArguments: '{"a":"\ud800"}',
    })
    const event = createMemorySession().append('tool/result', data)
    expect(formatEventLine(event)).toBe(`${JSON.stringify(event)}\n`)
  })
})
