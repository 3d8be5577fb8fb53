import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createMetricsWrapper, type ToolMetric } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

describe('enforced timeouts', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('T17: timeoutMs aborts the body signal and settles with TIMEOUT', async () => {
    const { ctx } = setup()
    let signal: AbortSignal | undefined
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 50,
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        signal = exec.signal
        return new Promise((resolve) => exec.signal.addEventListener('abort', () => resolve('stopped')))
      },
    })
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(49)
    expect(signal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await pending
    expect(signal?.aborted).toBe(true)
    expect(result).toMatchObject({
      isError: true,
      error: { message: 'Tool "slow" timed out after 50 ms.', info: { code: 'TIMEOUT' } },
    })
  })

  it('T17: a body that ignores its signal still settles on time; its late value is reported once', async () => {
    const { ctx, logger } = setup()
    ctx.tools.register({
      ...tool('stubborn'),
      timeoutMs: 20,
      execute: () => new Promise((resolve) => setTimeout(() => resolve('too late'), 1000)),
    })
    const pending = ctx.tools.execute(call('stubborn'))
    await vi.advanceTimersByTimeAsync(20)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    await vi.advanceTimersByTimeAsync(1000)
    // one warning per timeout: the late outcome, reported once
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^tool "stubborn" \(call call_\d+\) settled after its call was answered \(TIMEOUT\)/,
      ),
    ])
  })

  it('T17: a body that reads its signal only after the timeout finds it aborted with a TimeoutError', async () => {
    const { ctx } = setup()
    let read: (() => AbortSignal) | undefined
    ctx.tools.register({
      ...tool('lazy'),
      timeoutMs: 10,
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        read = () => exec.signal
        return new Promise(() => {})
      },
    })
    const pending = ctx.tools.execute(call('lazy'))
    await vi.advanceTimersByTimeAsync(10)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    const signal = read!()
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: 'timed out after 10 ms' })
  })

  it('T17: a TIMEOUT still goes through tools/post-execute, which sees it as it is (not as an abort)', async () => {
    const { ctx } = setup()
    const seen: string[] = []
    ctx.on('tools/post-execute', (c, next) => {
      seen.push(codeOf(c.result))
      return next()
    })
    ctx.tools.register({ ...tool('hang'), timeoutMs: 15, execute: () => new Promise<never>(() => {}) })
    const pending = ctx.tools.execute(call('hang'))
    await vi.advanceTimersByTimeAsync(15)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    expect(seen).toEqual(['TIMEOUT'])
  })

  it('T17: a body that returns a plain value arms no timer; one that returns a promise arms the runtime’s one timer, gone once no call needs it', async () => {
    const { ctx } = setup()
    let armedInSync = -1
    ctx.tools.register({
      ...tool('sync'),
      timeoutMs: 1_000,
      execute: () => {
        armedInSync = vi.getTimerCount()
        return 42
      },
    })
    let armed = -1
    ctx.tools.register({
      ...tool('async'),
      timeoutMs: 1_000,
      execute: async () => {
        await Promise.resolve()
        armed = vi.getTimerCount()
        return 'later'
      },
    })
    expect(await ctx.tools.execute(call('sync'))).toMatchObject({ isError: false, value: 42 })
    expect(armedInSync).toBe(0)
    expect(await ctx.tools.execute(call('async'))).toMatchObject({ isError: false, value: 'later' })
    expect(armed).toBe(1)
    // cleared once the microtasks that ended the call have run (a next call would have kept it)
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('T17: with another tools/execute wrapper (the waterfall runs the shipped wrapper), a fast call leaves no timer behind', async () => {
    const { ctx } = setup()
    const wrapped: string[] = []
    ctx.on('tools/execute', (executeCall, next) => {
      wrapped.push(executeCall.toolName)
      return next()
    })
    ctx.tools.register({
      ...tool('async'),
      timeoutMs: 60_000,
      execute: async () => {
        await Promise.resolve()
        return 'later'
      },
    })
    expect(await ctx.tools.execute(call('async'))).toMatchObject({ isError: false, value: 'later' })
    expect(wrapped).toEqual(['async'])
    // The policy-budget sweeper (unreferenced, at most every 5 s) ends once it finds no call left;
    // a timeout timer left behind would still be there for most of its minute.
    await vi.advanceTimersByTimeAsync(10_000)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('T17: the runtime default applies to tools that declare no timeout; a fast body is unaffected', async () => {
    const { ctx } = setup({ defaultTimeoutMs: 30 })
    ctx.tools.register({ ...tool('hang'), execute: () => new Promise<never>(() => {}) })
    ctx.tools.register(tool('fast', () => 'ok'))
    const pending = ctx.tools.execute(call('hang'))
    await vi.advanceTimersByTimeAsync(30)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    expect(codeOf(await ctx.tools.execute(call('fast')))).toBe('OK')
  })

  it('T17: enforceTimeouts: false leaves timeoutMs unenforced (the wrapper is what enforces it)', async () => {
    const { ctx } = setup({ enforceTimeouts: false })
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 10,
      execute: () => new Promise((r) => setTimeout(() => r('done'), 50)),
    })
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(50)
    expect(codeOf(await pending)).toBe('OK')
  })

  it('an outer wrapper cannot detach the caller’s cancellation by replacing the signal', async () => {
    const { ctx } = setup()
    let bodySignal: AbortSignal | undefined
    ctx.tools.register({
      ...tool('t'),
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        bodySignal = exec.signal
        return new Promise<never>(() => {})
      },
    })
    ctx.on('tools/execute', (c, next) => next({ ...c, signal: new AbortController().signal }))
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('t', {}, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    expect(bodySignal?.aborted).toBe(true)
    // the body ignores its signal: the call is ABORTED once the abort grace (2 s by default) ends
    await vi.advanceTimersByTimeAsync(2_000)
    expect(codeOf(await pending)).toBe('ABORTED')
    expect(bodySignal?.aborted).toBe(true)
  })

  it('the metrics wrapper reports one metric per call with its outcome, outside the timeout', async () => {
    const { ctx } = setup()
    const metrics: ToolMetric[] = []
    ctx.on(
      'tools/execute',
      createMetricsWrapper((m) => metrics.push(m)),
    )
    ctx.tools.register({ ...tool('slow'), timeoutMs: 5, execute: () => new Promise<never>(() => {}) })
    ctx.tools.register(tool('fast'))
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(5)
    await pending
    await ctx.tools.execute(call('fast'))
    expect(metrics.map((m) => [m.toolName, m.outcome])).toEqual([
      ['slow', 'TIMEOUT'],
      ['fast', 'ok'],
    ])
    expect(metrics[0]!.durationMs).toBeGreaterThanOrEqual(5)
  })
})
