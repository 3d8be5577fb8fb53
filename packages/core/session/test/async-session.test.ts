import { describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import {
  SessionError,
  createAsyncSession,
  parseSessionEvent,
  type AsyncSessionOptions,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { deferred, type Deferred } from '../../../../test-support/deferred.ts'
import { refusal, steppingClock } from './support/session-contract.ts'

/** A store whose writes the test completes by hand, one deferred per write. */
function manualStore() {
  const writes: { events: readonly SessionEvent[]; done: Deferred }[] = []
  const stored: SessionEvent[] = []
  const write = (events: readonly SessionEvent[]): Promise<void> => {
    const done = deferred()
    writes.push({ events, done })
    return done.promise.then(() => void stored.push(...events))
  }
  return { writes, stored, write }
}

/** The next turn of the event loop, by the real `setImmediate` even under a test's fake timers. */
const realSetImmediate = setImmediate
const tick = (): Promise<void> => new Promise((resolve) => realSetImmediate(resolve))

describe('createAsyncSession', () => {
  it('T28: an append resolves only once its write has, and reads show only what is durable', async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write, clock: steppingClock() })
    let acknowledged = false
    const appended = session.append('note', { n: 1 }).then((event) => {
      acknowledged = true
      return event
    })
    await tick()
    expect(store.writes).toHaveLength(1)
    expect(acknowledged).toBe(false)
    expect(session.lastSeq).toBe(0)
    expect(session.events()).toEqual([])
    expect(session.pending).toBe(1)
    store.writes[0]!.done.resolve()
    const event = await appended
    expect(acknowledged).toBe(true)
    expect(event).toEqual({ seq: 1, type: 'note', time: '2024-01-01T00:00:00.000Z', data: { n: 1 } })
    expect(store.stored).toEqual([event])
    expect(session.events()).toEqual([event])
    expect(session.lastSeq).toBe(1)
    expect(session.pending).toBe(0)
  })

  it('T61: appends made in later microtasks of the same turn of the event loop share the first write', async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write, clock: steppingClock() })
    // As a step starts its calls: each after the previous one's awaited policy check.
    const appended = (async () => {
      const out: Promise<SessionEvent>[] = []
      for (let n = 1; n <= 4; n++) {
        out.push(session.append('tool/call', { n }))
        await Promise.resolve()
        await Promise.resolve()
      }
      return out
    })()
    await tick()
    expect(store.writes.map((w) => w.events.map((e) => e.seq))).toEqual([[1, 2, 3, 4]])
    store.writes[0]!.done.resolve()
    expect((await Promise.all(await appended)).map((e) => e.seq)).toEqual([1, 2, 3, 4])
  })

  it('T61: appends made by timer callbacks of one turn of the event loop share one write', async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write, clock: steppingClock() })
    // As the results of bodies that each waited on a timer due at the same moment: Node runs the
    // nextTicks and microtasks after every timer callback, before the next one.
    const appended = await new Promise<Promise<SessionEvent>[]>((resolve) => {
      const out: Promise<SessionEvent>[] = []
      for (let n = 1; n <= 3; n++) {
        setTimeout(() => {
          out.push(session.append('tool/result', { n }))
          if (out.length === 3) resolve(out)
        }, 1)
      }
      // All three are due by the time the loop looks at its timers, however the clock moved
      // while they were set: they run in one pass.
      const due = performance.now() + 5
      while (performance.now() < due);
    })
    await tick()
    expect(store.writes.map((w) => w.events.map((e) => e.seq))).toEqual([[1, 2, 3]])
    store.writes[0]!.done.resolve()
    expect((await Promise.all(appended)).map((e) => e.seq)).toEqual([1, 2, 3])
  })

  it("T61: an asynchronous session still writes while a test's fake timers hold setImmediate", async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write, clock: steppingClock() })
    const realTick = tick
    vi.useFakeTimers()
    try {
      const appended = session.append('tool/call', { n: 1 })
      await realTick()
      expect(store.writes).toHaveLength(1)
      store.writes[0]!.done.resolve()
      expect((await appended).seq).toBe(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('T28: appends made while a write runs are numbered in call order and grouped into the next write', async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write, maxBatch: 3 })
    const first = [session.append('a', 1), session.append('b', 2)]
    await tick()
    expect(store.writes.map((w) => w.events.map((e) => e.seq))).toEqual([[1, 2]])
    // While the first write runs, later appends wait; they may cite the pending events.
    const later = [
      session.append('c', 3, { sourceEventSeqs: [2] }),
      session.append('d', 4),
      session.append('e', 5),
      session.append('f', 6),
    ]
    await tick()
    expect(store.writes).toHaveLength(1)
    store.writes[0]!.done.resolve()
    await Promise.all(first)
    await tick()
    expect(store.writes.map((w) => w.events.map((e) => e.seq))).toEqual([
      [1, 2],
      [3, 4, 5],
    ])
    store.writes[1]!.done.resolve()
    await tick()
    store.writes[2]!.done.resolve()
    const events = await Promise.all(later)
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
      [6, 'f'],
    ])
    expect(events[0]!.sourceEventSeqs).toEqual([2])
    expect(store.stored.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('a failed write rejects its appends and every later one with the store’s code, and the session refuses more', async () => {
    const store = manualStore()
    const session = createAsyncSession({ write: store.write })
    const ok = session.append('ok', 1)
    await tick()
    store.writes[0]!.done.resolve()
    await ok
    const lost = session.append('lost', 2)
    await tick()
    const behind = session.append('behind', 3, { surfaceOp: 'append' })
    store.writes[1]!.done.reject(
      new SessionError({
        code: 'LOCKED',
        message: 'another writer took the session over',
        details: { holder: 'b' },
      }),
    )
    const lostError = await refusal(() => lost)
    expect(lostError.code).toBe('LOCKED')
    expect(lostError.message).toBe('append("lost", data): another writer took the session over')
    expect(lostError.details.holder).toBe('b')
    const behindError = await refusal(() => behind)
    expect(behindError.code).toBe('LOCKED')
    expect(behindError.message).toBe(
      'append("behind", data, options): not written, because an earlier append of this session failed (another writer took the session over)',
    )
    const after = await refusal(() => session.append('after', 4))
    expect(after.code).toBe('LOCKED')
    expect(after.message).toMatch(
      /^append\("after", data\): the session refuses appends since a write failed .*; open it again to continue$/,
    )
    expect(store.writes).toHaveLength(2)
    expect(session.lastSeq).toBe(1)
    expect(session.events().map((e) => e.type)).toEqual(['ok'])
    expect(session.pending).toBe(0)
  })

  it('a write that throws, or rejects with something other than a SessionError, is an IO failure', async () => {
    const throwing = createAsyncSession({
      write: () => {
        throw new Error('socket closed')
      },
    })
    const error = await refusal(() => throwing.append('t', 1))
    expect(error.code).toBe('IO')
    expect(error.kind).toBe('system')
    expect(error.message).toBe('append("t", data): the store could not write: socket closed')
    const rejecting = createAsyncSession({ write: () => Promise.reject(42) })
    expect((await refusal(() => rejecting.append('t', 1))).message).toBe(
      'append("t", data): the store could not write: the number 42',
    )
  })

  it('validation failures reject (never throw) and use no seq', async () => {
    const session = createAsyncSession({ write: async () => {} })
    let promise: Promise<SessionEvent> | undefined
    expect(() => (promise = session.append('', 1))).not.toThrow()
    expect((await refusal(() => promise)).code).toBe('INVALID_ARGUMENT')
    expect((await session.append('t', 1)).seq).toBe(1)
  })

  it('close waits for accepted appends, releases once, never rejects, and later appends get CLOSED', async () => {
    const store = manualStore()
    let releases = 0
    const session = createAsyncSession({
      write: store.write,
      release: () => {
        releases++
        throw new Error('release failed')
      },
    })
    const accepted = session.append('a', 1)
    const closing = session.close()
    expect(session.close()).toBe(closing)
    expect(session.closed).toBe(true)
    expect((await refusal(() => session.append('b', 2))).code).toBe('CLOSED')
    await tick()
    expect(releases).toBe(0)
    store.writes[0]!.done.resolve()
    expect((await accepted).seq).toBe(1)
    await expect(closing).resolves.toBeUndefined()
    expect(releases).toBe(1)
    expect(session.events()).toHaveLength(1)
  })

  it('continues numbering after initial events and checks its options', async () => {
    const first = parseSessionEvent('{"seq":1,"type":"a","time":"2024-01-01T00:00:00.000Z","data":1}', 1)
    if (!first.ok) throw new Error(first.problem)
    const session = createAsyncSession({ write: async () => {}, initialEvents: [first.event] })
    expect(session.lastSeq).toBe(1)
    expect((await session.append('b', 2)).seq).toBe(2)
    const bad: [unknown, RegExp][] = [
      [{}, /options\.write must be a function, got undefined/],
      [{ write: async () => {}, maxBatch: 0 }, /options\.maxBatch must be a positive integer/],
      [
        { write: async () => {}, initialEvents: [{ seq: 1 }] },
        /initialEvents\[0\] must be a frozen event with seq 1/,
      ],
      [
        { write: async () => {}, initialEvents: [first.event, first.event] },
        /initialEvents\[1\] must be a frozen event with seq 2/,
      ],
      [{ write: async () => {}, wirte: 1 }, /unknown key "wirte"/],
      [{ write: async () => {}, clock: 'now' }, /options\.clock must be a function/],
    ]
    for (const [options, message] of bad) {
      const error = await refusal(() => createAsyncSession(options as AsyncSessionOptions))
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toMatch(message)
    }
  })

  it('T28: whatever the interleaving of appends, write completions and one failure, acknowledged events are exactly the durable prefix', async () => {
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.constant('append' as const) },
      { weight: 3, arbitrary: fc.constant('complete' as const) },
      { weight: 1, arbitrary: fc.constant('fail' as const) },
      { weight: 2, arbitrary: fc.constant('tick' as const) },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (ops, maxBatch) => {
          const store = manualStore()
          const session = createAsyncSession({ write: store.write, maxBatch })
          const outcomes: ({ ok: true; event: SessionEvent } | { ok: false; error: unknown } | undefined)[] =
            []
          let next = 0
          const settledWrites = new Set<Deferred>()
          const open = (): number => store.writes.findIndex((w) => !settledWrites.has(w.done))
          for (const step of ops) {
            if (step === 'append') {
              const index = outcomes.length
              outcomes.push(undefined)
              session.append('t', next++).then(
                (event) => (outcomes[index] = { ok: true, event }),
                (error: unknown) => (outcomes[index] = { ok: false, error }),
              )
            } else if (step === 'tick') await tick()
            else {
              const at = open()
              if (at === -1) continue
              const { done } = store.writes[at]!
              settledWrites.add(done)
              if (step === 'complete') done.resolve()
              else done.reject(new SessionError({ code: 'IO', message: 'boom' }))
              await tick()
            }
          }
          // Let everything still queued be written.
          for (let at = open(); at !== -1 || session.pending > 0; at = open()) {
            if (at === -1) {
              await tick()
              continue
            }
            settledWrites.add(store.writes[at]!.done)
            store.writes[at]!.done.resolve()
            await tick()
          }
          await tick()
          const acknowledged = outcomes.flatMap((o) => (o?.ok === true ? [o.event] : []))
          expect(outcomes.every((o) => o !== undefined)).toBe(true)
          // Durable == acknowledged == what the session shows, seqs 1..n, in call order.
          expect(store.stored).toEqual(acknowledged)
          expect(session.events()).toEqual(acknowledged)
          expect(acknowledged.map((e) => e.seq)).toEqual(acknowledged.map((_, i) => i + 1))
          // Every acknowledged append comes before every refused one.
          const firstRefused = outcomes.findIndex((o) => o?.ok === false)
          if (firstRefused !== -1)
            expect(outcomes.slice(firstRefused).every((o) => o?.ok === false)).toBe(true)
          // Writes never overlap and never exceed the batch size.
          for (const w of store.writes) expect(w.events.length).toBeLessThanOrEqual(maxBatch)
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('parseSessionEvent', () => {
  it('reads back a stored event as written, frozen, extra fields kept', () => {
    const text =
      '{"seq":2,"type":"x","time":"t","surfaceOp":"append","sourceEventSeqs":[1],"data":{"b":1,"a":[2]},"extra":true}'
    const parsed = parseSessionEvent(text, 2)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(JSON.stringify(parsed.event)).toBe(text)
    expect(Object.isFrozen((parsed.event.data as { a: unknown[] }).a)).toBe(true)
  })

  it('names what is wrong with a stored event', () => {
    const cases: [string, number, string][] = [
      ['{', 1, 'is not valid JSON ('],
      ['[]', 1, 'must be an event object, got an array'],
      ['{"seq":3,"type":"x","time":"t","data":1}', 2, 'has seq 3 where 2 was expected'],
      ['{"seq":1,"type":"","time":"t","data":1}', 1, 'has a type that must not be empty'],
      ['{"seq":1,"type":"x","time":1,"data":1}', 1, 'has a time that is the number 1'],
      ['{"seq":1,"type":"x","time":"t"}', 1, 'has no data'],
      [
        '{"seq":1,"type":"x","time":"t","data":1,"sourceEventSeqs":[1]}',
        1,
        'has sourceEventSeqs[0] is 1, which is not an earlier event than seq 1',
      ],
    ]
    for (const [text, seq, problem] of cases) {
      const parsed = parseSessionEvent(text, seq)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.problem.startsWith(problem), parsed.problem).toBe(true)
    }
  })
})
