import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  abortRun,
  addRace,
  linkCaller,
  unlinkCaller,
  removeRace,
  type AbortableRace,
  type CancellableRun,
} from '../src/pipeline/call-signal.ts'
import type { RunState } from '../src/pipeline/run-state.ts'
import { raceRunInto, raceRunThen } from '../src/pipeline/signals.ts'

/** The cancellation fields of a run, as `RunState` holds them, with nothing linked yet. */
function bareRun(): CancellableRun {
  return {
    callId: 'c1',
    toolName: 't',
    state: { registry: {} as CancellableRun['state']['registry'] },
    stage: 'dispatch',
    controller: undefined,
    cause: undefined,
    callerReason: undefined,
    watch: undefined,
    watchPrev: undefined,
    watchNext: undefined,
    waiters: undefined,
    race: undefined,
    races: undefined,
    timedOutAfter: undefined,
    graceTimer: undefined,
    budgetDeadline: undefined,
    budgetPausedAt: undefined,
  }
}

/** A race that counts its aborts and leaves the run when it ends, as `StageRace` does. */
function countingRace(run: CancellableRun, aborts: string[], name: string): AbortableRace {
  const race: AbortableRace = {
    abort: () => {
      aborts.push(name)
      removeRace(run, race)
    },
  }
  return race
}

describe('T38: every stage racing a call hears its abort, exactly once', () => {
  it('T38: the first race (in its own field) and the races alongside it (in the set) are all aborted, each once', () => {
    const run = bareRun()
    const aborts: string[] = []
    for (const name of ['a', 'b', 'c']) addRace(run, countingRace(run, aborts, name))
    expect(run.race).toBeDefined()
    expect(run.races?.size).toBe(2)
    abortRun(run, 'caller')
    expect(aborts.sort()).toEqual(['a', 'b', 'c'])
    expect([run.race, run.races]).toEqual([undefined, undefined])
    abortRun(run, 'caller')
    expect(aborts).toHaveLength(3)
  })

  it('T38: a race that ended is not aborted, and its field serves the next race', () => {
    const run = bareRun()
    const aborts: string[] = []
    const first = countingRace(run, aborts, 'first')
    const second = countingRace(run, aborts, 'second')
    addRace(run, first)
    addRace(run, second)
    removeRace(run, first)
    removeRace(run, second)
    expect([run.race, run.races?.size]).toEqual([undefined, 0])
    const third = countingRace(run, aborts, 'third')
    addRace(run, third)
    expect(run.race).toBe(third)
    abortRun(run, 'deadline')
    expect(aborts).toEqual(['third'])
  })
})

describe('T38: a raced body settles with its result, or the error of making it', () => {
  const racedRun = () =>
    ({ ...bareRun(), watch: { head: undefined, tail: undefined, attached: false } }) as unknown as RunState

  it("T38: raceRunThen resolves with what finish made of the body's value (given the race's extra), and the run holds no race afterwards", async () => {
    const run = racedRun()
    const answer = raceRunThen(
      run,
      Promise.resolve(2),
      (_run, kind, payload, factor: number) => (kind === 'value' ? (payload as number) * factor : -1),
      10,
    )
    expect(run.race).toBeDefined()
    expect(await answer).toBe(20)
    expect(run.race).toBeUndefined()
  })

  it("T38: finish gets a rejected body's error itself as the payload, with kind error", async () => {
    const run = racedRun()
    const failure = new Error('body failed')
    const answer = raceRunThen(
      run,
      Promise.reject(failure),
      (_run, kind, payload, extra: string) => [kind, payload, extra],
      'extra',
    )
    expect(await answer).toEqual(['error', failure, 'extra'])
    expect((await answer)[1]).toBe(failure)
  })

  it('T38: when finish throws, the promise rejects with what it threw (never stays pending)', async () => {
    const run = racedRun()
    const broken = new Error('could not make the result')
    const answer = raceRunThen(
      run,
      Promise.reject(new Error('body failed')),
      () => {
        throw broken
      },
      undefined,
    )
    await expect(answer).rejects.toBe(broken)
  })

  it('T38: an abort without drain settles the race as aborted at once, while the body is still running', async () => {
    const run = racedRun()
    ;(run as { state: unknown }).state = { registry: { options: { abortGraceMs: 0 } } }
    const seen: string[] = []
    const answer = raceRunThen(
      run,
      new Promise<never>(() => {}),
      (_run, kind) => {
        seen.push(kind)
        return kind
      },
      undefined,
    )
    abortRun(run, 'deadline')
    expect(await answer).toBe('aborted')
    expect(seen).toEqual(['aborted'])
  })
})

describe('T38: a raced body whose answer nobody awaits (raceRunInto) delivers it, or the error of making it', () => {
  const racedRun = () =>
    ({ ...bareRun(), watch: { head: undefined, tail: undefined, attached: false } }) as unknown as RunState
  /** A promise and its resolve (Node 20 has no `Promise.withResolvers`). */
  const deferred = <T>() => {
    let resolve!: (value: T) => void
    const promise = new Promise<T>((done) => (resolve = done))
    return { promise, resolve }
  }
  const noFailure = (_run: RunState, error: unknown): never => {
    throw new Error(`unexpected failure: ${String(error)}`)
  }

  it("T38: finish gets the body's outcome and the race's extra; the run holds no race afterwards", async () => {
    const run = racedRun()
    const { promise: delivered, resolve } = deferred<number>()
    raceRunInto(
      run,
      Promise.resolve(2),
      (_run, kind, payload, factor: number) => resolve(kind === 'value' ? (payload as number) * factor : -1),
      10,
      noFailure,
    )
    expect(run.race).toBeDefined()
    expect(await delivered).toBe(20)
    expect(run.race).toBeUndefined()
  })

  it('T38: when finish throws, what it threw goes to failed (no promise rejects unhandled)', async () => {
    const run = racedRun()
    const broken = new Error('could not make the result')
    const { promise: failedWith, resolve } = deferred<unknown>()
    raceRunInto(
      run,
      Promise.reject(new Error('body failed')),
      () => {
        throw broken
      },
      undefined,
      (failedRun, error) => resolve([failedRun, error]),
    )
    expect(await failedWith).toEqual([run, broken])
  })

  it('T38: an abort without drain delivers aborted at once, while the body is still running', () => {
    const run = racedRun()
    ;(run as { state: unknown }).state = { registry: { options: { abortGraceMs: 0 } } }
    const seen: string[] = []
    raceRunInto(run, new Promise<never>(() => {}), (_run, kind) => void seen.push(kind), undefined, noFailure)
    abortRun(run, 'deadline')
    expect(seen).toEqual(['aborted'])
  })
})

describe('T38: the calls in flight on a caller signal (a list through the runs)', () => {
  it('T38: an abort reaches exactly the calls still linked, oldest first; the listener is on the signal only while one is', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('link', 'unlink'), fc.nat({ max: 7 })), { maxLength: 40 }),
        fc.boolean(),
        (ops, abortAtEnd) => {
          const caller = new AbortController()
          const runs = Array.from({ length: 8 }, (_, i) => ({ ...bareRun(), callId: `r${i}` }))
          // the model: the linked calls in the order they were linked
          const linked: string[] = []
          for (const [op, at] of ops) {
            const run = runs[at]!
            if (op === 'link') {
              if (run.watch !== undefined) continue // a run follows its caller once
              linkCaller(run, caller.signal)
              linked.push(run.callId)
            } else {
              unlinkCaller(run)
              const index = linked.indexOf(run.callId)
              if (index >= 0) linked.splice(index, 1)
            }
            expect(getEventListeners(caller.signal, 'abort')).toHaveLength(linked.length > 0 ? 1 : 0)
          }
          if (!abortAtEnd) return
          const order: string[] = []
          for (const run of runs) {
            const race: AbortableRace = { abort: () => order.push(run.callId) }
            run.race = race
          }
          caller.abort()
          expect(order).toEqual(linked)
          for (const run of runs) {
            expect(run.cause).toBe(linked.includes(run.callId) ? 'caller' : undefined)
            expect([run.watch, run.watchPrev, run.watchNext]).toEqual([undefined, undefined, undefined])
          }
          expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
        },
      ),
    )
  })
})
