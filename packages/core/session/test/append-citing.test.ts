import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  appendCiting,
  appendOptionsCiting,
  createAsyncSession,
  createMemorySession,
  openJsonlSession,
  readJsonlSession,
  toolResultEventData,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { loadSecondCopy } from './support/second-copy.ts'
import { thrown } from './support/thrown.ts'

/** A session holding `count` events, so seqs 1…count exist. */
function sessionWith(count: number): Session {
  const session = createMemorySession({ clock: () => new Date(0) })
  for (let i = 0; i < count; i++) session.append('note', { i })
  return session
}

/** What one append did: the event, or the error's code and message; and the log after it. */
function outcome(append: (session: Session) => SessionEvent, before: number) {
  const session = sessionWith(before)
  let result: unknown
  try {
    result = append(session)
  } catch (error) {
    const { code, message } = error as { code: string; message: string }
    result = { code, message }
  }
  return { result, log: session.read() }
}

const data = fc.oneof(
  fc.jsonValue(),
  fc.constant(undefined),
  fc.constant(Number.NaN),
  fc.constant(
    toolResultEventData({
      turn: 1,
      step: 1,
      callId: 'c1',
      content: 'ok',
      isError: false,
      timings: undefined,
    }),
  ),
)

describe('T58: appendCiting appends what append with appendOptionsCiting appends, without the options', () => {
  it('T58: same event, same error, same log for any type, data, earlier or later seq and surface flag (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom('tool/result', 'tool/began', ''), fc.string()),
        data,
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        fc.nat({ max: 10 }),
        (type, value, cited, surface, before) => {
          const direct = outcome((s) => appendCiting(s, type, value, cited, surface), before)
          const options = outcome((s) => s.append(type, value, appendOptionsCiting(cited, surface)), before)
          expect(direct).toEqual(options)
          if ((direct.result as { seq?: number }).seq !== undefined) {
            const event = direct.result as SessionEvent
            expect(Object.isFrozen(event)).toBe(true)
            expect(Object.isFrozen(event.sourceEventSeqs)).toBe(true)
            expect(Object.keys(event)).toEqual(Object.keys(options.result as object))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('T58: a run of citing appends, repeating or changing the cited seq, logs what append with the options logs, each list frozen (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
        (citations) => {
          const direct = sessionWith(4)
          const withOptions = sessionWith(4)
          for (const [cited, surface] of citations) {
            const event = appendCiting(direct, 'tool/began', { cited }, cited, surface)
            withOptions.append('tool/began', { cited }, appendOptionsCiting(cited, surface))
            expect(event.sourceEventSeqs).toEqual([cited])
            expect(Object.isFrozen(event.sourceEventSeqs)).toBe(true)
          }
          const strip = (events: readonly SessionEvent[]) => events.map(({ time: _time, ...rest }) => rest)
          expect(strip(direct.events())).toEqual(strip(withOptions.events()))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('T58: a seq that is not an integer ≥ 1 is refused before anything is appended', () => {
    const session = sessionWith(2)
    for (const bad of [0, -1, 1.5, Number.NaN, '1' as unknown as number]) {
      const error = thrown(() => appendCiting(session, 'tool/result', {}, bad, true))
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toContain('sourceSeq must be an integer ≥ 1')
    }
    expect(session.lastSeq).toBe(2)
  })

  it('T58: a closed session refuses it as append does', () => {
    const session = sessionWith(1)
    session.close()
    const error = thrown(() => appendCiting(session, 'tool/result', {}, 1, true))
    expect([error.code, error.message]).toEqual([
      'CLOSED',
      'append("tool/result", data, options): the session is closed',
    ])
  })

  it('T58: the event is in the log at once (a view taken before is replaced) and in a JSONL file', () => {
    const session = sessionWith(1)
    const before = session.events()
    const event = appendCiting(session, 'tool/result', { r: 1 }, 1, true)
    expect(before.length).toBe(1)
    expect(session.events().at(-1)).toBe(event)
    expect([event.seq, event.surfaceOp, event.sourceEventSeqs]).toEqual([2, 'append', [1]])

    const dir = mkdtempSync(join(tmpdir(), 'append-citing-'))
    try {
      const path = join(dir, 'log.jsonl')
      const file = openJsonlSession(path)
      file.append('tool/call', { r: 0 })
      appendCiting(file, 'tool/result', { r: 1 }, 1, true)
      file.close()
      const read = readJsonlSession(path).events.at(-1)
      expect([read?.seq, read?.surfaceOp, read?.sourceEventSeqs, read?.data]).toEqual([
        2,
        'append',
        [1],
        { r: 1 },
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('T58: a session that is not one of this copy (a wrapper, an async store, a second copy) gets the options', async () => {
    const inner = sessionWith(1)
    const seen: unknown[] = []
    const wrapper: Session = {
      ...inner,
      append: (type, value, options) => (seen.push(options), inner.append(type, value, options)),
    }
    const wrapped = appendCiting(wrapper, 'tool/result', {}, 1, true)
    expect([wrapped.surfaceOp, wrapped.sourceEventSeqs]).toEqual(['append', [1]])
    expect(seen).toEqual([{ surfaceOp: 'append', sourceEventSeqs: [1] }])

    const written: SessionEvent[] = []
    const async = createAsyncSession({ write: async (events) => void written.push(...events) })
    await async.append('tool/call', {})
    const event = await appendCiting(async, 'tool/result', {}, 1)
    expect([event.surfaceOp, event.sourceEventSeqs, written[1]?.sourceEventSeqs]).toEqual([
      undefined,
      [1],
      [1],
    ])

    const second = await loadSecondCopy()
    const theirs = second.createMemorySession()
    theirs.append('n', {})
    const other = appendCiting(theirs as unknown as Session, 'tool/result', {}, 1, true)
    expect([other.seq, other.surfaceOp, other.sourceEventSeqs]).toEqual([2, 'append', [1]])
  })
})
