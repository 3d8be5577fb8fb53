import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, runToolBatch, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import { call, codeOf, deferred, setup, tick } from './fixtures.ts'

/** A tool whose calls block until released, recording what ran concurrently. */
function gatedTools() {
  const gates = new Map<string, { resolve: (value: undefined) => void }>()
  const log: string[] = []
  let running = 0
  let peak = 0
  const body = (id: string) => async () => {
    running++
    peak = Math.max(peak, running)
    log.push(`start:${id}`)
    const gate = deferred<undefined>()
    gates.set(id, gate)
    await gate.promise
    running--
    log.push(`end:${id}`)
    return id
  }
  const parallel = defineTool({
    name: 'p',
    description: 'parallel',
    parameters: z.object({ id: z.string(), key: z.string().nullable() }),
    isConcurrencySafe: () => true,
    concurrencyKey: ({ key }) => key ?? undefined,
    execute: ({ id }) => body(id)(),
  })
  const exclusive = defineTool({
    name: 'x',
    description: 'exclusive',
    parameters: z.object({ id: z.string(), key: z.string().nullable() }),
    execute: ({ id }) => body(id)(),
  })
  const release = async (id: string): Promise<void> => {
    for (let i = 0; i < 20 && !gates.has(id); i++) await tick()
    gates.get(id)?.resolve(undefined)
    await tick()
  }
  return { parallel, exclusive, log, release, peak: () => peak, started: (id: string) => gates.has(id) }
}

const p = (id: string, key: string | null = null): ToolExecutionInput => ({
  callId: id,
  name: 'p',
  arguments: JSON.stringify({ id, key }),
})
const x = (id: string): ToolExecutionInput => ({
  callId: id,
  name: 'x',
  arguments: JSON.stringify({ id, key: null }),
})

describe('batch entry (T20)', () => {
  it('T20: executeBatch runs calls with the loop contract and returns results in model order', async () => {
    const { ctx } = setup()
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    const pending = ctx.tools.executeBatch([p('a'), p('b'), p('c')], { maxParallel: 2 })
    await g.release('b')
    await g.release('c')
    await g.release('a')
    const results = await pending
    expect(results.map((r) => (r.isError ? 'err' : r.value))).toEqual(['a', 'b', 'c'])
    expect(g.peak()).toBe(2)
  })

  it('T20/T22: an exclusive call is a barrier in a batch too', async () => {
    const { ctx } = setup()
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    ctx.tools.register(g.exclusive)
    const pending = ctx.tools.executeBatch([p('a'), p('b'), x('X'), p('c')])
    await tick()
    expect(g.started('a') && g.started('b')).toBe(true)
    expect(g.started('X')).toBe(false)
    await g.release('a')
    await g.release('b')
    expect(g.started('X')).toBe(true)
    expect(g.started('c')).toBe(false)
    await g.release('X')
    await g.release('c')
    await pending
    expect(g.log).toEqual(['start:a', 'start:b', 'end:a', 'end:b', 'start:X', 'end:X', 'start:c', 'end:c'])
  })

  it('T23: the pool is rolling: a freed slot is refilled at once', async () => {
    const { ctx } = setup()
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    const pending = ctx.tools.executeBatch([p('a'), p('b'), p('c'), p('d')], { maxParallel: 2 })
    await tick()
    expect([g.started('a'), g.started('b'), g.started('c')]).toEqual([true, true, false])
    await g.release('b')
    expect(g.started('c')).toBe(true)
    expect(g.started('d')).toBe(false)
    await g.release('a')
    expect(g.started('d')).toBe(true)
    await g.release('c')
    await g.release('d')
    await pending
  })

  it('resource keys: same-key calls never overlap; calls still start in model order', async () => {
    const { ctx } = setup()
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    const pending = ctx.tools.executeBatch([p('a', 'f1'), p('c', 'f2'), p('b', 'f1'), p('d', 'f2')])
    await tick()
    // a and c hold different keys and overlap; b waits for f1 and, since policy runs in model
    // order, d waits behind b even though f2 would be free once c ends
    expect([g.started('a'), g.started('c'), g.started('b'), g.started('d')]).toEqual([
      true,
      true,
      false,
      false,
    ])
    await g.release('a')
    expect(g.started('b')).toBe(true)
    await g.release('c')
    expect(g.started('d')).toBe(true)
    await g.release('d')
    await g.release('b')
    await g.release('c')
    expect((await pending).every((r) => !r.isError)).toBe(true)
  })

  it('T25: results commit in model order even when dispatch finishes out of order', async () => {
    const { ctx } = setup()
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    const commits: number[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b'), p('c')],
      hooks: { onCommit: (index) => void commits.push(index) },
    })
    await g.release('c')
    await g.release('b')
    expect(commits).toEqual([])
    await g.release('a')
    await pending
    expect(commits).toEqual([0, 1, 2])
  })

  it('T26: on abort, started calls drain and the rest get ABORTED_BEFORE_DISPATCH', async () => {
    // the gated bodies never finish: no abort grace, so the drain ends at once
    const { ctx } = setup({ abortGraceMs: 0 })
    const g = gatedTools()
    ctx.tools.register(g.parallel)
    ctx.tools.register(g.exclusive)
    const controller = new AbortController()
    const starts: [number, string | undefined][] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), x('X'), p('b')],
      signal: controller.signal,
      hooks: { onStart: (index, _input, mode) => void starts.push([index, mode]) },
    })
    await tick()
    controller.abort()
    const results = await pending
    expect(results.map(codeOf)).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(starts).toEqual([
      [0, 'parallel'],
      [1, undefined],
      [2, undefined],
    ])
    expect(g.started('X')).toBe(false)
  })

  it('maxParallel must be a positive integer; duplicate call ids are refused before anything runs', async () => {
    const { ctx } = setup()
    await expect(runToolBatch({ tools: ctx.tools, calls: [], maxParallel: 0 })).rejects.toThrow(
      /options.maxParallel must be a positive integer, got the number 0/,
    )
    await expect(
      runToolBatch({
        tools: ctx.tools,
        calls: [call('a', {}, { callId: 'same' }), call('b', {}, { callId: 'same' })],
      }),
    ).rejects.toThrow(/calls\[1\].callId "same" is used twice in one batch/)
  })

  it('a throwing tools/result observer is contained: it neither fails the batch nor changes a result', async () => {
    const { ctx, logger } = setup()
    ctx.tools.register(
      defineTool({ name: 'ok', description: 'd', parameters: z.object({}), execute: () => 1 }),
    )
    ctx.on('tools/result', () => {
      throw new Error('observer failures are contained and never fail the batch')
    })
    const results = await ctx.tools.executeBatch([call('ok'), call('ok')])
    expect(results.map(codeOf)).toEqual(['OK', 'OK'])
    expect(results.map((r) => !r.isError && r.value)).toEqual([1, 1])
    expect(logger.entries.filter((e) => e.message === 'listener for "tools/result" failed')).toHaveLength(2)
  })
})
