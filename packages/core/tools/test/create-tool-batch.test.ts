import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import {
  ToolsError,
  createToolBatch,
  defineTool,
  resolveToolRuntimeScheduler,
  type ToolBatchHooks,
  type ToolExecutionInput,
} from '@deepseek-ai/dsh-tools'
import type { Deferred } from '../../../../test-support/deferred.ts'
import { codeOf, deferred, setup, tick } from './fixtures.ts'

/** `p` (parallel-safe) and `x` (exclusive) tools whose bodies wait for the test; a journal of starts. */
function gated(ctx: Context) {
  const gates = new Map<string, Deferred<string>>()
  const gate = (id: string): Deferred<string> => {
    let g = gates.get(id)
    if (g === undefined) gates.set(id, (g = deferred<string>()))
    return g
  }
  const started: string[] = []
  const body = async ({ id }: { id: string }, exec: { signal: AbortSignal }): Promise<string> => {
    started.push(id)
    const g = gate(id)
    exec.signal.addEventListener('abort', () => g.reject(new Error(`${id} stopped`)), { once: true })
    return g.promise
  }
  const parameters = z.object({ id: z.string() })
  ctx.tools.register(
    defineTool({
      name: 'p',
      description: 'parallel',
      parameters,
      isConcurrencySafe: () => true,
      execute: body,
    }),
  )
  ctx.tools.register(defineTool({ name: 'x', description: 'exclusive', parameters, execute: body }))
  return {
    started,
    release: async (id: string) => {
      gate(id).resolve(id)
      await tick()
    },
  }
}

const p = (id: string, extra: Partial<ToolExecutionInput> = {}): ToolExecutionInput => ({
  callId: id,
  name: 'p',
  arguments: JSON.stringify({ id }),
  ...extra,
})
const x = (id: string): ToolExecutionInput => ({ callId: id, name: 'x', arguments: JSON.stringify({ id }) })

/** A journal of every hook, as `start 0 parallel`, `commit 0 OK`, … */
function journal(): { log: string[]; hooks: ToolBatchHooks } {
  const log: string[] = []
  return {
    log,
    hooks: {
      onQueued: (index) => void log.push(`queued ${index}`),
      onStart: (index, _input, mode) => void log.push(`start ${index} ${mode}`),
      onCommit: (index, _input, result) => void log.push(`commit ${index} ${codeOf(result)}`),
    },
  }
}

describe('createToolBatch: calls handed over as they arrive (incremental intake)', () => {
  it('incremental intake: a parallel call starts as soon as it is added, before the next one exists', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const { log, hooks } = journal()
    const batch = createToolBatch({ tools: ctx.tools, hooks })
    batch.add(p('a'))
    await tick()
    expect(g.started).toEqual(['a'])
    batch.add(p('b'))
    await tick()
    expect(g.started).toEqual(['a', 'b'])
    expect(batch.view()).toMatchObject({ added: 2, running: 2, inPool: 2, closed: false })
    await g.release('a')
    await g.release('b')
    // committed as they finished, in model order, while the batch is still open
    expect(log).toEqual([
      'queued 0',
      'start 0 parallel',
      'queued 1',
      'start 1 parallel',
      'commit 0 OK',
      'commit 1 OK',
    ])
    let settled = false
    void batch.outcome.then(() => (settled = true))
    await tick()
    expect(settled).toBe(false)
    batch.close()
    expect(await batch.outcome).toMatchObject({
      kind: 'completed',
      results: [{ value: 'a' }, { value: 'b' }],
    })
  })

  it('T22: an exclusive call that arrives after parallel ones waits for the end of intake and for their commits; later calls wait behind it', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const batch = createToolBatch({ tools: ctx.tools })
    batch.add(p('a'))
    batch.add(p('b'))
    batch.add(x('X'))
    batch.add(p('c'))
    await g.release('a')
    await g.release('b')
    // everything before X committed, but intake is still open: X may not start yet, nor c behind it
    expect(g.started).toEqual(['a', 'b'])
    batch.close()
    await tick()
    expect(g.started).toEqual(['a', 'b', 'X'])
    await g.release('X')
    expect(g.started).toEqual(['a', 'b', 'X', 'c'])
    await g.release('c')
    expect((await batch.outcome).results.map(codeOf)).toEqual(['OK', 'OK', 'OK', 'OK'])
  })

  it('incremental intake: with eager: () => false nothing starts before close()', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const batch = createToolBatch({ tools: ctx.tools, eager: (input) => input.callId !== 'b' })
    batch.add(p('a'))
    batch.add(p('b'))
    batch.add(p('c'))
    await tick()
    // b may not start early, and c may not overtake it (starts follow model order)
    expect(g.started).toEqual(['a'])
    batch.close()
    await tick()
    expect(g.started).toEqual(['a', 'b', 'c'])
    for (const id of ['a', 'b', 'c']) await g.release(id)
    expect((await batch.outcome).kind).toBe('completed')
  })

  it.each([
    ['true', () => true, true],
    [
      'a throw',
      () => {
        throw new Error('eager predicate failed')
      },
      false,
    ],
    ['undefined', () => undefined, false],
    ['"yes"', () => 'yes', false],
    ['1', () => 1, false],
  ])(
    'T40: an eager predicate answering %s: only true starts the call before close(); a throw counts as no',
    async (_label, answer, early) => {
      const { ctx } = setup()
      const g = gated(ctx)
      const batch = createToolBatch({ tools: ctx.tools, eager: answer as () => boolean })
      batch.add(p('a'))
      await tick()
      expect(g.started).toEqual(early ? ['a'] : [])
      batch.close()
      await tick()
      expect(g.started).toEqual(['a'])
      await g.release('a')
      expect((await batch.outcome).kind).toBe('completed')
    },
  )

  it('T36: batch.add reads a call once and keeps one copy, bound to the batch: a refused call (a repeated id, a bad approval) binds nothing to its signal', async () => {
    const { ctx } = setup()
    gated(ctx)
    const queued: ToolExecutionInput[] = []
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: { onQueued: (_i, input) => void queued.push(input) },
    })
    const own = new AbortController()
    let reads = 0
    const first = { ...p('a'), signal: own.signal }
    Object.defineProperty(first, 'name', { enumerable: true, get: () => ((reads += 1), 'p') })
    batch.add(first)
    expect(reads).toBe(1)
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(1)
    // the copy the hooks see runs with the batch's signal for this call, not the caller's own
    expect(Object.isFrozen(queued[0])).toBe(true)
    expect(queued[0]!.signal).toBeInstanceOf(AbortSignal)
    expect(queued[0]!.signal).not.toBe(own.signal)
    const other = new AbortController()
    expect(() => batch.add({ ...p('a'), signal: other.signal })).toThrow('call.callId "a" is used twice')
    expect(() =>
      batch.add({
        ...p('b'),
        signal: other.signal,
        approval: { kind: 'answered', answer: { answer: 'nope' } },
      } as never),
    ).toThrow(/call\.approval\.answer\.answer must be/)
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0)
    expect(queued).toHaveLength(1)
    own.abort()
    batch.close()
    expect((await batch.outcome).results.map(codeOf)).toEqual(['ABORTED_BEFORE_DISPATCH'])
  })

  it('adding after close() is an error (ALREADY_FINISHED); close() is idempotent; bad calls are refused by name', async () => {
    const { ctx } = setup()
    gated(ctx)
    const batch = createToolBatch({ tools: ctx.tools })
    batch.add(p('a'))
    expect(() => batch.add(p('a'))).toThrow('batch.add(call): call.callId "a" is used twice in one batch')
    expect(() => batch.add({ callId: 'z', name: 'p' } as never)).toThrow(
      /batch\.add\(call\): call\.arguments must be a JSON string or object, got /,
    )
    batch.close()
    batch.close()
    let caught: unknown
    try {
      batch.add(p('late'))
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('ALREADY_FINISHED')
    expect((caught as Error).message).toBe(
      'batch.add(call): the batch is closed; calls can only be added before close()',
    )
    expect(() => createToolBatch({ tools: ctx.tools, maxParallel: 1.5 })).toThrow(
      'createToolBatch(options): options.maxParallel must be a positive integer, got the number 1.5',
    )
    expect(() => createToolBatch({ tools: ctx.tools, hooks: { onCommit: 'log' as never } })).toThrow(
      /createToolBatch\(options\): options\.hooks\.onCommit must be a function, got /,
    )
    expect(() => createToolBatch({ tools: {} })).toThrow(/does not expose TOOL_RUNTIME_SCHEDULER/)
  })

  it('T26: an abort while intake is open: started calls drain, the others and later arrivals get ABORTED_BEFORE_DISPATCH in order, and the outcome waits for close()', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const { log, hooks } = journal()
    const controller = new AbortController()
    const batch = createToolBatch({ tools: ctx.tools, signal: controller.signal, hooks, maxParallel: 1 })
    batch.add(p('a'))
    batch.add(p('b'))
    await tick()
    expect(g.started).toEqual(['a'])
    controller.abort(new Error('user stop'))
    await tick()
    batch.add(p('c'))
    await tick()
    expect(log).toEqual([
      'queued 0',
      'queued 1',
      'start 0 parallel',
      'commit 0 ABORTED',
      'start 1 undefined',
      'commit 1 ABORTED_BEFORE_DISPATCH',
      'queued 2',
      'start 2 undefined',
      'commit 2 ABORTED_BEFORE_DISPATCH',
    ])
    expect(batch.view()).toMatchObject({ committed: 3, stop: 'aborted', closed: false })
    batch.close()
    expect((await batch.outcome).results.map(codeOf)).toEqual([
      'ABORTED',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ])
  })

  it('T26: a call with its own signal inside a batch that aborts is stopped by either; its own abort stops only that call', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const batchStop = new AbortController()
    const ownStop = new AbortController()
    const batch = createToolBatch({ tools: ctx.tools, signal: batchStop.signal })
    batch.add(p('own', { signal: ownStop.signal }))
    batch.add(p('other'))
    batch.add(p('mine-too', { signal: ownStop.signal }))
    batch.close()
    await tick()
    ownStop.abort()
    await tick()
    await g.release('other')
    expect(batch.view()).toMatchObject({ committed: 3 })
    const first = await batch.outcome
    expect(first.results.map(codeOf)).toEqual(['ABORTED', 'OK', 'ABORTED'])

    const second = createToolBatch({ tools: ctx.tools, signal: batchStop.signal })
    const untouched = new AbortController()
    second.add(p('with-own', { signal: untouched.signal }))
    second.close()
    await tick()
    batchStop.abort()
    expect((await second.outcome).results.map(codeOf)).toEqual(['ABORTED'])
    expect(untouched.signal.aborted).toBe(false)
  })

  it('onStart and onCommit may return promises: the next start and the next commit wait for them, in model order', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const log: string[] = []
    const slowStart = deferred()
    const slowCommit = deferred()
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: {
        onStart: async (index) => {
          log.push(`start ${index}`)
          if (index === 0) await slowStart.promise
          log.push(`recorded ${index}`)
        },
        onCommit: async (index) => {
          log.push(`commit ${index}`)
          if (index === 0) await slowCommit.promise
          log.push(`stored ${index}`)
        },
      },
    })
    batch.add(p('a'))
    batch.add(p('b'))
    batch.close()
    await tick()
    expect(log).toEqual(['start 0'])
    expect(g.started).toEqual([])
    slowStart.resolve()
    await tick()
    expect(g.started).toEqual(['a', 'b'])
    await g.release('b')
    await g.release('a')
    expect(log).toEqual(['start 0', 'recorded 0', 'start 1', 'recorded 1', 'commit 0'])
    slowCommit.resolve()
    await batch.outcome
    expect(log.slice(-3)).toEqual(['stored 0', 'commit 1', 'stored 1'])
  })

  it('a rejected promise from a hook fails the batch like a throw; every call still gets one result', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: { onCommit: (index) => (index === 0 ? Promise.reject(new Error('store down')) : undefined) },
    })
    batch.add(p('a'))
    batch.add(p('b'))
    batch.close()
    await g.release('a')
    await g.release('b')
    const outcome = await batch.outcome
    expect(outcome).toMatchObject({ kind: 'failed', error: { message: 'store down' } })
    expect(outcome.results.map(codeOf)).toEqual(['OK', 'SCHEDULER_FAILED'])
  })

  it('one abort listener per batch on the caller signal, none left after; no MaxListenersExceededWarning at any pool size', async () => {
    const { ctx } = setup({ defaultTimeoutMs: 60_000 })
    const g = gated(ctx)
    const warnings: string[] = []
    const onWarning = (warning: Error): void => void warnings.push(warning.name)
    process.on('warning', onWarning)
    try {
      const caller = new AbortController()
      const shared = new AbortController()
      const batch = createToolBatch({ tools: ctx.tools, signal: caller.signal, maxParallel: 64 })
      const ids = Array.from({ length: 64 }, (_, i) => `c${i}`)
      for (const id of ids) batch.add(p(id, { signal: shared.signal }))
      batch.close()
      await tick()
      expect(g.started).toHaveLength(64)
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1)
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1)
      for (const id of ids) await g.release(id)
      await batch.outcome
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('the batch signal: one per batch, lent again only when nothing can hear it', () => {
  const signalOf = async (
    ctx: Context,
    options: { stop?: AbortController; listen?: boolean; fail?: boolean } = {},
  ): Promise<AbortSignal> => {
    let seen: AbortSignal | undefined
    const batch = createToolBatch({
      tools: ctx.tools,
      ...(options.stop === undefined ? {} : { signal: options.stop.signal }),
      hooks: {
        onQueued: (_index, input) => {
          seen = input.signal
          if (options.listen === true) input.signal?.addEventListener('abort', () => {})
          // aborted while the batch runs: its signal is aborted with it
          options.stop?.abort()
        },
        onCommit: () => {
          if (options.fail === true) throw new Error('store down')
        },
      },
    })
    batch.add({ callId: `c${Math.random()}`, name: 'quick', arguments: '{}' })
    batch.close()
    await batch.outcome
    return seen!
  }

  it('T26: a batch that ended cleanly lends its signal to the next one, unaborted', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({ name: 'quick', description: 'q', parameters: z.object({}), execute: () => 1 }),
    )
    const first = await signalOf(ctx)
    const second = await signalOf(ctx)
    expect(second).toBe(first)
    expect(second.aborted).toBe(false)
    expect(getEventListeners(second, 'abort')).toHaveLength(0)
  })

  it('T26: the signal of a batch that aborted or failed, or that someone still listens to, is never lent again', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({ name: 'quick', description: 'q', parameters: z.object({}), execute: () => 1 }),
    )
    const aborted = await signalOf(ctx, { stop: new AbortController() })
    const failed = await signalOf(ctx, { fail: true })
    const listened = await signalOf(ctx, { listen: true })
    expect(aborted.aborted).toBe(true)
    expect(failed.aborted).toBe(true)
    const later = [await signalOf(ctx), await signalOf(ctx), await signalOf(ctx)]
    for (const signal of later) {
      expect(signal).not.toBe(aborted)
      expect(signal).not.toBe(failed)
      expect(signal).not.toBe(listened)
      expect(signal.aborted).toBe(false)
    }
  })
})

describe('the shared batch signal reaches exactly the unanswered calls', () => {
  it('T26: an abort stops the calls still running and never the body of a call already answered', async () => {
    const { ctx } = setup()
    const signals = new Map<string, AbortSignal>()
    const gates = new Map<string, Deferred<string>>()
    ctx.tools.register(
      defineTool({
        name: 'w',
        description: 'waits',
        parameters: z.object({ id: z.string() }),
        isConcurrencySafe: () => true,
        execute: ({ id }, exec) => {
          signals.set(id, exec.signal)
          const gate = deferred<string>()
          gates.set(id, gate)
          exec.signal.addEventListener('abort', () => gate.reject(new Error('stopped')), { once: true })
          return gate.promise
        },
      }),
    )
    const stop = new AbortController()
    const batch = createToolBatch({ tools: ctx.tools, signal: stop.signal })
    for (const id of ['done', 'running'])
      batch.add({ callId: id, name: 'w', arguments: JSON.stringify({ id }) })
    batch.close()
    await tick()
    gates.get('done')!.resolve('ok')
    await tick()
    expect(batch.view()).toMatchObject({ committed: 1 })
    stop.abort()
    expect((await batch.outcome).results.map(codeOf)).toEqual(['OK', 'ABORTED'])
    expect(signals.get('running')!.aborted).toBe(true)
    expect(signals.get('done')!.aborted).toBe(false)
  })

  it('T36: hooks get the batch’s frozen copy; an object that only looks like one (same prototype, getters) is read once and copied', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'echo2',
        description: 'echo',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    )
    let queued: ToolExecutionInput | undefined
    const batch = createToolBatch({ tools: ctx.tools, hooks: { onQueued: (_i, input) => (queued = input) } })
    batch.add({ callId: 'a', name: 'echo2', arguments: '{"text":"hi"}' })
    batch.close()
    await batch.outcome
    expect(Object.isFrozen(queued)).toBe(true)
    expect(() => {
      ;(queued as { name: string }).name = 'other'
    }).toThrow(TypeError)
    // a forgery with the checked copy's prototype: its getters answer differently on each read
    let reads = 0
    const forged = Object.create(Object.getPrototypeOf(queued) as object, {
      callId: { get: () => 'forged', enumerable: true },
      name: { get: () => (reads++ === 0 ? 'echo2' : 'nope'), enumerable: true },
      arguments: { get: () => '{"text":"ok"}', enumerable: true },
    }) as ToolExecutionInput
    // a scheduler method reads it once and works on its own copy, as for any input
    const prepared = await resolveToolRuntimeScheduler(ctx.tools).prepare(forged)
    expect(reads).toBe(1)
    expect(prepared).toMatchObject({ stage: 'dispatch', run: { toolName: 'echo2' } })
    const second = createToolBatch({ tools: ctx.tools })
    second.add(forged)
    second.close()
    expect((await second.outcome).results).toMatchObject([{ isError: true }])
    expect(reads).toBe(2)
  })
})
