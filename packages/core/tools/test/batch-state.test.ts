import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { CallConcurrency, ToolExecutionInput, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { createBatchState, type PendingResult } from '../src/scheduler/batch-state.ts'
import { createKeyLocks } from '../src/scheduler/key-locks.ts'

// The batch's coordination state on its own: no runtime, no promises. A pending result and a
// result are opaque to it, so plain stand-ins do.
const input = (i: number): ToolExecutionInput => ({ callId: `c${i}`, name: 't', arguments: '{}' })
const pending = { stage: 'final-result' } as unknown as PendingResult
/** A stand-in candidate of its own per call, so a test can tell whose was handed back. */
const pendings = new Map<number, PendingResult>()
const pendingOf = (index: number): PendingResult => {
  let made = pendings.get(index)
  if (made === undefined)
    pendings.set(index, (made = { stage: 'final-result', index } as unknown as PendingResult))
  return made
}
const result = (tag: string) =>
  ({ isError: false, content: [], value: tag }) as unknown as ToolExecutionResult
const par = (...keys: string[]): CallConcurrency => ({ mode: 'parallel', keys })
const EXCL: CallConcurrency = { mode: 'exclusive', keys: [] }

function batchOf(n: number, maxParallel = 2, locks = createKeyLocks()) {
  const state = createBatchState({ maxParallel, locks })
  for (let i = 0; i < n; i++) state.add(input(i))
  return { state, locks }
}

describe('batch state (the coordination of runToolBatch, on its own)', () => {
  it('T23: a parallel call needs a free slot; the slot frees at settle and the view counts it', () => {
    const { state } = batchOf(3)
    state.close()
    expect(state.view()).toMatchObject({ added: 3, queued: 3, inPool: 0, committed: 0 })
    state.begin(0, par())
    // policy runs one call at a time (T25): nothing else may start during call 0's policy stage
    expect(state.nextToStart()).toBeUndefined()
    state.dispatched(0)
    expect(state.admits(1, par(), false)).toBe(true)
    state.begin(1, par())
    state.dispatched(1)
    expect(state.view()).toMatchObject({ queued: 1, running: 2, inPool: 2 })
    expect(state.admits(2, par(), false)).toBe(false)
    expect(state.settle(1, pending, false)).toBe(true)
    expect(state.view()).toMatchObject({ running: 1, settled: 1, inPool: 1 })
    expect(state.admits(2, par(), false)).toBe(true)
  })

  it('T22: an exclusive call needs the batch closed, every earlier call committed and no body running; it holds the barrier until it commits', () => {
    const { state } = batchOf(3)
    state.begin(0, par())
    state.dispatched(0)
    expect(state.admits(1, EXCL, false)).toBe(false) // still open
    state.close()
    expect(state.admits(1, EXCL, false)).toBe(false) // call 0 runs
    state.settle(0, pending, false)
    expect(state.admits(1, EXCL, false)).toBe(false) // call 0 not committed
    expect(state.nextCommit()).toEqual({ kind: 'finalize', index: 0, pending })
    state.commit(0, result('a'))
    expect(state.admits(1, EXCL, false)).toBe(true)
    state.begin(1, EXCL)
    state.dispatched(1)
    state.settle(1, pending, false)
    expect(state.view().barrier).toBe(true)
    expect(state.admits(2, par(), false)).toBe(false)
    state.commit(1, result('X'))
    expect(state.view().barrier).toBe(false)
    expect(state.admits(2, par(), false)).toBe(true)
  })

  it('before close a parallel call starts only when eager; calls start in model order only', () => {
    const { state } = batchOf(2)
    expect(state.admits(0, par(), false)).toBe(false)
    expect(state.admits(0, par(), true)).toBe(true)
    expect(state.admits(1, par(), true)).toBe(false)
    expect(() => state.begin(1, par())).toThrow(/call 1 cannot start \(next is 0/)
  })

  it('resource keys are shared by every batch of one lock table; a release wakes waiters once', () => {
    const locks = createKeyLocks()
    const a = batchOf(1, 4, locks).state
    const b = batchOf(1, 4, locks).state
    a.close()
    b.close()
    a.begin(0, par('f1', 'f2'))
    a.dispatched(0)
    expect(b.admits(0, par('f2'), false)).toBe(false)
    expect(b.admits(0, par('f3'), false)).toBe(true)
    let woken = 0
    locks.onRelease(() => woken++)
    a.settle(0, pending, false)
    expect(woken).toBe(1)
    expect([...locks.held]).toEqual([])
    expect(b.admits(0, par('f2'), false)).toBe(true)
  })

  it('a body that outlives its result keeps its slot and keys (parallel) or the barrier (exclusive) until it settles', () => {
    const locks = createKeyLocks()
    const { state } = batchOf(3, 1, locks)
    state.close()
    state.begin(0, par('file'))
    state.dispatched(0)
    state.settle(0, pending, true) // TIMEOUT while the body still runs
    state.commit(0, result('timeout'))
    expect(state.view()).toMatchObject({ committed: 1, lingering: 1, inPool: 1 })
    expect(locks.free(['file'])).toBe(false)
    expect(state.admits(1, par(), false)).toBe(false) // the pool of 1 is still taken
    expect(state.admits(1, EXCL, false)).toBe(false)
    state.bodyDone(0)
    expect(state.view()).toMatchObject({ lingering: 0, inPool: 0 })
    expect(locks.free(['file'])).toBe(true)
    state.begin(1, EXCL)
    state.dispatched(1)
    state.settle(1, pending, true)
    state.commit(1, result('timeout'))
    expect(state.view().barrier).toBe(true)
    expect(state.admits(2, par(), false)).toBe(false)
    state.bodyDone(1)
    expect(state.admits(2, par(), false)).toBe(true)
  })

  it('T25: commits go in model order, one step at a time', () => {
    const { state } = batchOf(2, 2)
    state.close()
    state.begin(0, par())
    state.dispatched(0)
    state.begin(1, par())
    state.dispatched(1)
    state.settle(1, pending, false)
    expect(state.nextCommit()).toBeUndefined()
    state.settle(0, pending, false)
    state.beginCommit()
    expect(state.nextCommit()).toBeUndefined()
    state.endCommit()
    expect(state.nextCommit()).toMatchObject({ kind: 'finalize', index: 0 })
    expect(() => state.commit(1, result('b'))).toThrow(/commit of 1 while 0 is next/)
    state.commit(0, result('a'))
    state.commit(1, result('b'))
    expect(state.done).toBe(true)
    expect(state.results().map((r) => !r.isError && r.value)).toEqual(['a', 'b'])
  })

  it('T26: after an abort nothing starts; calls that never started are skipped in order once everything before them committed', () => {
    const { state } = batchOf(3)
    state.begin(0, par())
    state.dispatched(0)
    expect(state.abort()).toBe(true)
    expect(state.abort()).toBe(false)
    expect(state.nextToStart()).toBeUndefined()
    expect(state.unfinished()).toEqual([0])
    expect(state.nextCommit()).toBeUndefined() // call 0 drains first
    state.settle(0, pending, false)
    state.commit(0, result('aborted'))
    expect(state.nextCommit()).toEqual({ kind: 'skip', index: 1 })
    state.announce(1)
    state.commit(1, result('skipped'))
    expect(state.nextCommit()).toEqual({ kind: 'skip', index: 2 })
    expect(state.done).toBe(false) // still open: more calls may arrive
  })

  it('T39: a failure (which wins over an abort) turns every remaining commit into recovery, reusing a final result', () => {
    const { state } = batchOf(3)
    state.close()
    state.begin(0, par())
    state.dispatched(0)
    state.settle(0, pending, false)
    state.abort()
    state.finalized(0, result('seen by observers'))
    expect(state.fail(new Error('sink'))).toBe(true)
    expect(state.fail(new Error('later'))).toBe(false)
    expect(state.stop).toMatchObject({ kind: 'failed', error: { message: 'sink' } })
    expect(state.nextCommit()).toEqual({
      kind: 'recover',
      index: 0,
      announced: true,
      final: result('seen by observers'),
    })
    state.commit(0, result('seen by observers'))
    expect(state.nextCommit()).toEqual({ kind: 'recover', index: 1, announced: false, final: undefined })
  })

  it('a call answered by recovery while its body still runs keeps its claim until the body settles', () => {
    const locks = createKeyLocks()
    const { state } = batchOf(1, 2, locks)
    state.close()
    state.begin(0, par('k'))
    state.dispatched(0)
    state.fail(new Error('boom'))
    state.commit(0, result('SCHEDULER_FAILED'))
    expect(state.view()).toMatchObject({ running: 0, inPool: 1 })
    expect(locks.free(['k'])).toBe(false)
    expect(state.settle(0, pending, false)).toBe(false)
    expect(locks.free(['k'])).toBe(true)
    expect(state.view().inPool).toBe(0)
  })

  it('T38/T39: a failed batch is done only once every body that started has returned; recovery hands over the candidate it drops', () => {
    const { state } = batchOf(4, 4)
    state.close()
    for (const index of [0, 1, 2]) {
      state.begin(index, par())
      state.dispatched(index)
    }
    const finished = { stage: 'post-result', tag: 'body of 1 returned' } as unknown as PendingResult
    state.settle(1, finished, false)
    state.fail(new Error('session refused a tool/result'))
    // call 0 still runs: answered now (model order), its body drained later
    expect(state.nextCommit()).toEqual({ kind: 'recover', index: 0, announced: true, final: undefined })
    state.commit(0, result('SCHEDULER_FAILED'))
    // call 1's body returned, but its result will never be final: recovery hands it over, once
    expect(state.nextCommit()).toEqual({
      kind: 'recover',
      index: 1,
      announced: true,
      final: undefined,
      dropped: finished,
    })
    state.commit(1, result('SCHEDULER_FAILED'))
    state.commit(2, result('SCHEDULER_FAILED'))
    expect(state.nextCommit()).toEqual({ kind: 'recover', index: 3, announced: false, final: undefined })
    state.announce(3)
    state.commit(3, result('SCHEDULER_FAILED'))
    expect(state.committed).toBe(4)
    // every call is answered, but the bodies of calls 0 and 2 have not returned: not done yet
    expect(state.done).toBe(false)
    expect(state.view()).toMatchObject({ draining: 2 })
    expect(state.settle(0, pending, false)).toBe(false) // the caller reports its outcome as late
    expect(state.done).toBe(false)
    state.abandon(2) // its dispatch rejected
    expect(state.view()).toMatchObject({ draining: 0 })
    expect(state.done).toBe(true)
  })

  it('T39: a candidate from the policy stage (no body ran) is not handed over as a dropped outcome', () => {
    const { state } = batchOf(2, 2)
    state.close()
    state.begin(0, par())
    state.settle(0, pending, false) // denied, say: prepare produced the result
    state.fail(new Error('x'))
    expect(state.nextCommit()).toEqual({ kind: 'recover', index: 0, announced: true, final: undefined })
  })

  it('invariants hold under any sequence of operations (fast-check)', () => {
    type Op =
      | { op: 'start'; mode: 'parallel' | 'exclusive'; keys: string[]; eager: boolean; suspend: boolean }
      | { op: 'settle'; pick: number; linger: boolean }
      | { op: 'commit' }
      | { op: 'body'; pick: number }
      | { op: 'close' | 'abort' | 'fail' }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          op: fc.constant('start' as const),
          mode: fc.constantFrom('parallel' as const, 'exclusive' as const),
          keys: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 2 }),
          eager: fc.boolean(),
          suspend: fc.boolean(),
        }),
      },
      {
        weight: 4,
        arbitrary: fc.record({ op: fc.constant('settle' as const), pick: fc.nat(), linger: fc.boolean() }),
      },
      { weight: 4, arbitrary: fc.record({ op: fc.constant('commit' as const) }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('body' as const), pick: fc.nat() }) },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constantFrom('close' as const, 'abort' as const, 'fail' as const) }),
      },
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(opArb, { maxLength: 80 }),
        (n, cap, ops) => {
          const locks = createKeyLocks()
          const { state } = batchOf(n, cap, locks)
          const running = new Set<number>()
          const lingering = new Set<number>()
          const modes = new Map<number, CallConcurrency>()
          for (const step of ops) {
            switch (step.op) {
              case 'start': {
                const index = state.nextToStart()
                const c: CallConcurrency = { mode: step.mode, keys: step.keys }
                if (index === undefined || !state.admits(index, c, step.eager)) break
                state.begin(index, c)
                if (step.suspend && index % 3 === 2) {
                  // a pending approval: the claim goes, and nothing after it starts
                  state.suspend(index, 'ask')
                  break
                }
                state.dispatched(index)
                running.add(index)
                modes.set(index, c)
                break
              }
              case 'settle': {
                const list = [...running]
                if (list.length === 0) break
                const index = list[step.pick % list.length]!
                running.delete(index)
                state.settle(index, pendingOf(index), step.linger)
                if (step.linger) lingering.add(index)
                break
              }
              case 'body': {
                const list = [...lingering]
                if (list.length === 0) break
                const index = list[step.pick % list.length]!
                lingering.delete(index)
                state.bodyDone(index)
                break
              }
              case 'commit': {
                const next = state.nextCommit()
                if (next === undefined) break
                if (next.kind === 'suspend') {
                  state.park(next.index)
                  break
                }
                if (next.kind !== 'finalize' && !(next.kind === 'recover' && next.announced))
                  state.announce(next.index)
                state.commit(next.index, result(`r${next.index}`))
                break
              }
              case 'close':
                state.close()
                break
              case 'abort':
                state.abort()
                break
              case 'fail':
                state.fail(new Error('x'))
                break
            }
            // issue 26: the record-free finalize is exactly nextCommit's finalize step (the oracle),
            // and neither offers a step while one runs
            const next = state.nextCommit()
            expect(state.nextFinalize()).toBe(next?.kind === 'finalize' ? next.pending : undefined)
            if (next?.kind === 'finalize') {
              expect(next.index).toBe(state.committed)
              expect(next.pending).toBe(pendingOf(next.index))
            }
            state.beginCommit()
            expect(state.nextFinalize()).toBeUndefined()
            expect(state.nextCommit()).toBeUndefined()
            state.endCommit()
            const view = state.view()
            // the pool cap, counts that add up, and committed ≤ started ≤ added
            expect(view.inPool).toBeLessThanOrEqual(cap)
            expect(state.committed).toBeLessThanOrEqual(state.started)
            expect(state.started).toBeLessThanOrEqual(view.added)
            expect(view.queued).toBe(view.added - state.started)
            // a held key is held by exactly the parallel claims that name it
            const holders = new Map<string, number>()
            for (const index of [...running, ...lingering]) {
              const c = modes.get(index)!
              if (c.mode === 'parallel')
                for (const key of c.keys) holders.set(key, (holders.get(key) ?? 0) + 1)
            }
            expect(new Map(locks.held)).toEqual(holders)
            // an exclusive claim is alone: no parallel claim beside it
            if (view.barrier) expect(view.inPool).toBe(0)
            // T38/T39: a batch is never done while a body it started has not returned (also when a
            // failure answered that call already)
            if (state.done) expect(running.size).toBe(0)
            expect(view.draining).toBe([...running].filter((i) => state.phase(i) === 'committed').length)
          }
        },
      ),
      { numRuns: 2000 },
    )
  }, 30_000)
})

describe('issue 26: the batch state is an object V8 keeps fast', () => {
  it('T23/T25: its figures are prototype getters that follow every change, not own accessors (an object literal that declares a getter is a dictionary-mode object in V8)', () => {
    const { state } = batchOf(2)
    const figures = ['closed', 'stop', 'added', 'started', 'committed', 'done', 'parked'] as const
    for (const figure of figures) {
      expect(Object.getOwnPropertyDescriptor(state, figure)).toBeUndefined()
      expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(state), figure)?.get).toBe(
        'function',
      )
    }
    // and no own property of any kind holds a getter
    for (const key of Reflect.ownKeys(state)) {
      expect(Object.getOwnPropertyDescriptor(state, key)?.get).toBeUndefined()
    }
    expect([state.closed, state.added, state.started, state.committed, state.done]).toEqual([
      false,
      2,
      0,
      0,
      false,
    ])
    state.close()
    state.begin(0, par())
    state.dispatched(0)
    state.settle(0, pending, false)
    state.commit(0, result('a'))
    state.begin(1, par())
    state.dispatched(1)
    state.settle(1, pending, false)
    state.commit(1, result('b'))
    expect([state.closed, state.added, state.started, state.committed, state.done]).toEqual([
      true,
      2,
      2,
      2,
      true,
    ])
    expect(state.fail(new Error('late'))).toBe(true)
    expect(state.stop?.kind).toBe('failed')
  })
})
