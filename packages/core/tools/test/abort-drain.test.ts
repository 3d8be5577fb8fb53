import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  resolveToolRuntimeScheduler,
  type LateToolOutcome,
  type ScheduledToolDispatch,
  type ToolCallInfo,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, deferred, setup, tool } from './fixtures.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A tool whose body runs until the test settles it; it records the signal it got. */
function gated(name = 'work') {
  const gate = deferred<unknown>()
  let signal: AbortSignal | undefined
  let starts = 0
  const definition = {
    ...tool(name),
    execute: (_args: unknown, exec: { signal: AbortSignal }) => {
      starts++
      signal = exec.signal
      return gate.promise
    },
  }
  return { definition, gate, signal: () => signal, starts: () => starts }
}

function lateLog(ctx: ReturnType<typeof setup>['ctx']) {
  const late: [LateToolOutcome, ToolCallInfo][] = []
  ctx.on('tools/late-outcome', (outcome, info) => void late.push([outcome, info]))
  return late
}

describe('T38: abort drains started bodies', () => {
  it('T38: a body that honours its signal is ABORTED at once, with nothing left running', async () => {
    const { ctx } = setup()
    const body = gated()
    ctx.tools.register(body.definition)
    body.gate.promise.catch(() => {})
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    body.signal()!.addEventListener('abort', () => body.gate.reject(new Error('stopped')))
    controller.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(codeOf(await pending)).toBe('ABORTED')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('T38: a body that finishes within the grace is committed as it is; post-execute still checks it', async () => {
    const { ctx } = setup()
    const body = gated()
    ctx.tools.register(body.definition)
    const checked: unknown[] = []
    ctx.on('tools/post-execute', (c, next) => {
      checked.push(c.result.isError ? 'error' : (c.result as { value?: unknown }).value)
      return next()
    })
    const late = lateLog(ctx)
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    expect(body.signal()?.aborted).toBe(true)
    await vi.advanceTimersByTimeAsync(20)
    body.gate.resolve('deployed anyway')
    const result = await pending
    expect(result).toMatchObject({ isError: false, value: 'deployed anyway' })
    expect(checked).toEqual(['deployed anyway'])
    expect(late).toEqual([])
  })

  it('T38: a rejection after the signal fired, within the grace, is ABORTED (not TOOL_FAILED)', async () => {
    const { ctx } = setup()
    const body = gated()
    ctx.tools.register(body.definition)
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    await vi.advanceTimersByTimeAsync(500)
    body.gate.reject(new Error('interrupted mid-write'))
    expect(codeOf(await pending)).toBe('ABORTED')
  })

  it('T38: a body that ignores its signal: ABORTED after abortGraceMs; its late value is reported once', async () => {
    const { ctx, logger } = setup({ abortGraceMs: 100 })
    const body = gated()
    ctx.tools.register(body.definition)
    const late = lateLog(ctx)
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const controller = new AbortController()
    const prepared = await scheduler.prepare(call('work', { n: 1 }, { signal: controller.signal }))
    let dispatched: ScheduledToolDispatch | undefined
    void scheduler.dispatch(prepared.run).then((d) => void (dispatched = d))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    await vi.advanceTimersByTimeAsync(99)
    expect(dispatched).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(dispatched).toMatchObject({
      stage: 'final-result',
      result: { error: { info: { code: 'ABORTED' } } },
    })
    const settled = dispatched!.bodySettled
    expect(settled).toBeInstanceOf(Promise)
    expect(late).toEqual([])
    body.gate.resolve({ rows: 3 })
    expect(await settled).toEqual({ kind: 'value', value: { rows: 3 } })
    expect(late).toHaveLength(1)
    expect(late[0]![0]).toEqual({ kind: 'value', value: { rows: 3 } })
    expect(late[0]![1]).toBe(prepared.run.call)
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1)
    expect(scheduler.finish(dispatched!.run, dispatched!.result)).toMatchObject({ isError: true })
  })

  it('T38: a body that never settles is reported abandoned after lateBodyCapMs; bodySettled never rejects', async () => {
    const { ctx, logger } = setup({ abortGraceMs: 10, lateBodyCapMs: 1_000 })
    ctx.tools.register({ ...tool('hang'), execute: () => new Promise<never>(() => {}) })
    ctx.tools.register({
      ...tool('fail-late'),
      execute: () =>
        new Promise((_resolve, reject) => setTimeout(() => reject(new Error('late failure')), 50)),
    })
    const late = lateLog(ctx)
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const run = async (name: string) => {
      const controller = new AbortController()
      const prepared = await scheduler.prepare(call(name, {}, { signal: controller.signal }))
      const dispatching = scheduler.dispatch(prepared.run)
      controller.abort()
      await vi.advanceTimersByTimeAsync(10)
      return dispatching
    }
    const hang = await run('hang')
    const failLate = await run('fail-late')
    await vi.advanceTimersByTimeAsync(50)
    expect(await failLate.bodySettled).toEqual({ kind: 'error', message: 'late failure' })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(await hang.bodySettled).toEqual({ kind: 'abandoned' })
    expect(late.map(([outcome, info]) => [info.toolName, outcome.kind])).toEqual([
      ['fail-late', 'error'],
      ['hang', 'abandoned'],
    ])
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.message)).toEqual([
      expect.stringMatching(/"fail-late".*settled after its call was answered \(ABORTED\)/),
      expect.stringMatching(
        /"hang".*still running 1000 ms after its call was answered \(ABORTED\); abandoned/,
      ),
    ])
  })

  it('T38: a body that settles after it was reported abandoned is not reported again', async () => {
    const { ctx, logger } = setup({ abortGraceMs: 10, lateBodyCapMs: 1_000 })
    const body = gated('slow')
    ctx.tools.register(body.definition)
    const late = lateLog(ctx)
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const controller = new AbortController()
    const prepared = await scheduler.prepare(call('slow', {}, { signal: controller.signal }))
    const dispatching = scheduler.dispatch(prepared.run)
    controller.abort()
    await vi.advanceTimersByTimeAsync(10)
    const dispatched = await dispatching
    await vi.advanceTimersByTimeAsync(1_000)
    expect(await dispatched.bodySettled).toEqual({ kind: 'abandoned' })
    body.gate.resolve('too late')
    await vi.advanceTimersByTimeAsync(0)
    expect(late.map(([outcome]) => outcome.kind)).toEqual(['abandoned'])
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1)
  })

  it('T38: a late value that is not lossless JSON is reported as an error outcome', async () => {
    const { ctx } = setup({ abortGraceMs: 0 })
    const body = gated()
    ctx.tools.register(body.definition)
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const controller = new AbortController()
    const prepared = await scheduler.prepare(call('work', {}, { signal: controller.signal }))
    const dispatching = scheduler.dispatch(prepared.run)
    controller.abort()
    await vi.advanceTimersByTimeAsync(0)
    const dispatched = await dispatching
    body.gate.resolve({ n: 10n })
    expect(await dispatched.bodySettled).toEqual({
      kind: 'error',
      message: 'returned a value that is not lossless JSON: value.n is a BigInt',
    })
  })

  it('T38: a result produced after the body settled carries no bodySettled', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('quick', () => 'done'))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('quick'))
    const dispatched = await scheduler.dispatch(prepared.run)
    expect('bodySettled' in dispatched).toBe(false)
  })

  it('T17/T38: a TIMEOUT while the body still runs carries bodySettled', async () => {
    const { ctx } = setup()
    const body = gated()
    ctx.tools.register({ ...body.definition, timeoutMs: 30 })
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('work'))
    const dispatching = scheduler.dispatch(prepared.run)
    await vi.advanceTimersByTimeAsync(30)
    const dispatched = await dispatching
    expect(codeOf(dispatched.result)).toBe('TIMEOUT')
    expect(dispatched.stage).toBe('post-result')
    body.gate.resolve('eventually')
    expect(await dispatched.bodySettled).toEqual({ kind: 'value', value: 'eventually' })
  })
})

describe('T16: a body that never started is ABORTED_BEFORE_DISPATCH, never ABORTED', () => {
  it('T16: an abort after the guards passed but before dispatch', async () => {
    const { ctx } = setup()
    const body = gated()
    ctx.tools.register(body.definition)
    let guarded = 0
    ctx.tools.guard(() => void guarded++)
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const controller = new AbortController()
    const prepared = await scheduler.prepare(call('work', {}, { signal: controller.signal }))
    expect(prepared.stage).toBe('dispatch')
    expect(guarded).toBe(1)
    controller.abort()
    const dispatched = await scheduler.dispatch(prepared.run)
    expect(dispatched).toMatchObject({
      stage: 'final-result',
      result: { error: { info: { code: 'ABORTED_BEFORE_DISPATCH' } } },
    })
    expect('bodySettled' in dispatched).toBe(false)
    expect(body.starts()).toBe(0)
  })

  it('T16: an abort while a wrapper waits before next(): the body never runs, even if next() comes later', async () => {
    const { ctx } = setup({ abortGraceMs: 50 })
    const body = gated()
    ctx.tools.register(body.definition)
    const hold = deferred()
    let inner: unknown
    ctx.on('tools/execute', async (_c, next) => {
      await hold.promise
      inner = await next()
      return inner as never
    })
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    await vi.advanceTimersByTimeAsync(10)
    hold.resolve()
    await vi.advanceTimersByTimeAsync(0)
    // the wrapper answered within the grace with what next() gave it: nothing ran
    expect(codeOf(await pending)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(codeOf(inner as never)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(body.starts()).toBe(0)
  })

  it('T16/T38: a wrapper that never calls next() is ABORTED_BEFORE_DISPATCH at once, not after the grace', async () => {
    const { ctx } = setup({ abortGraceMs: 60_000 })
    const body = gated()
    ctx.tools.register(body.definition)
    ctx.on('tools/execute', () => new Promise<never>(() => {}))
    const controller = new AbortController()
    let settled: ToolExecutionResult | undefined
    void ctx.tools.execute(call('work', {}, { signal: controller.signal })).then((r) => (settled = r))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    // no time passes: the answer is there without the 60 s grace
    await vi.advanceTimersByTimeAsync(0)
    expect(settled && codeOf(settled)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(body.starts()).toBe(0)
  })

  it('T16/T38: a wrapper paused before next() that answers a success after the abort commits no success for a body that never ran', async () => {
    const { ctx } = setup({ abortGraceMs: 60_000 })
    const body = gated()
    ctx.tools.register(body.definition)
    const hold = deferred()
    let answered = false
    ctx.on('tools/execute', async () => {
      await hold.promise // the injected pause: the wrapper is still deciding when the abort comes
      answered = true
      return { isError: false, content: [{ type: 'text', text: 'cached' }] }
    })
    const results: ToolExecutionResult[] = []
    ctx.on('tools/result', (r) => void results.push(r))
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    await vi.advanceTimersByTimeAsync(0)
    hold.resolve() // the wrapper answers well within the grace
    await vi.advanceTimersByTimeAsync(0)
    const result = await pending
    expect(answered).toBe(true)
    expect(codeOf(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(results.map(codeOf)).toEqual(['ABORTED_BEFORE_DISPATCH'])
    expect(body.starts()).toBe(0)
  })

  it('T38: a wrapper whose body had started when the abort came still drains: the body’s value within the grace commits', async () => {
    const { ctx } = setup({ abortGraceMs: 50 })
    const body = gated()
    ctx.tools.register(body.definition)
    ctx.on('tools/execute', async (_c, next) => next())
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    expect(body.starts()).toBe(1)
    controller.abort()
    await vi.advanceTimersByTimeAsync(10)
    body.gate.resolve('done')
    expect(await pending).toMatchObject({ isError: false, value: 'done' })
  })
})
