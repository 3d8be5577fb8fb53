import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call, codeOf, deferred, setup, tick, tool } from './fixtures.ts'

const warnings: Error[] = []
const onWarning = (warning: Error): void => void warnings.push(warning)
beforeEach(() => {
  warnings.length = 0
  process.on('warning', onWarning)
})
afterEach(() => {
  process.off('warning', onWarning)
  vi.useRealTimers()
})

describe('the caller’s signal: one shared listener, removed when the calls settle (issue 8 items 7, 8)', () => {
  it('20 concurrent calls sharing one signal, through every stage: one abort listener in all, none after, no warning', async () => {
    const { ctx } = setup()
    const gate = deferred()
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 60_000,
      execute: async (_a: unknown, exec: { signal: AbortSignal }) => {
        void exec.signal
        await gate.promise
        return 'ok'
      },
    })
    ctx.on('tools/pre-execute', async (_c, next) => next())
    ctx.on('tools/execute', async (_c, next) => next())
    ctx.on('tools/post-execute', async (_c, next) => next())
    ctx.tools.guard(async () => undefined)
    const shared = new AbortController().signal
    const pending = Array.from({ length: 20 }, () => ctx.tools.execute(call('slow', {}, { signal: shared })))
    for (let i = 0; i < 10; i++) await tick()
    expect(getEventListeners(shared, 'abort')).toHaveLength(1)
    gate.resolve()
    expect((await Promise.all(pending)).map(codeOf)).toEqual(Array(20).fill('OK'))
    expect(getEventListeners(shared, 'abort')).toHaveLength(0)
    await tick()
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it('aborting a shared signal reaches every call in flight on it, and only those', async () => {
    const { ctx } = setup({ abortGraceMs: 0 })
    const signals: AbortSignal[] = []
    ctx.tools.register({
      ...tool('wait'),
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        signals.push(exec.signal)
        return new Promise((_resolve, reject) =>
          exec.signal.addEventListener('abort', () => reject(new Error('stop'))),
        )
      },
    })
    ctx.tools.register(tool('quick', () => 'done'))
    const shared = new AbortController()
    const done = await ctx.tools.execute(call('quick', {}, { signal: shared.signal }))
    const pending = Array.from({ length: 12 }, () =>
      ctx.tools.execute(call('wait', {}, { signal: shared.signal })),
    )
    const other = new AbortController()
    const unrelated = ctx.tools.execute(call('wait', {}, { signal: other.signal }))
    for (let i = 0; i < 5; i++) await tick()
    shared.abort()
    expect((await Promise.all(pending)).map(codeOf)).toEqual(Array(12).fill('ABORTED'))
    expect(signals.filter((s) => s.aborted)).toHaveLength(12)
    expect(done).toMatchObject({ isError: false })
    other.abort()
    expect(codeOf(await unrelated)).toBe('ABORTED')
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
  })

  it('a timer is cleared after a fast call, and a later abort of the caller’s signal reaches nothing', async () => {
    vi.useFakeTimers()
    const { ctx } = setup()
    let bodySignal: AbortSignal | undefined
    ctx.tools.register({
      ...tool('fast'),
      timeoutMs: 5_000,
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        bodySignal = exec.signal
        return 'quick'
      },
    })
    const controller = new AbortController()
    const result = await ctx.tools.execute(call('fast', {}, { signal: controller.signal }))
    expect(codeOf(result)).toBe('OK')
    expect(vi.getTimerCount()).toBe(0)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    controller.abort()
    expect(bodySignal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(result).toMatchObject({ isError: false, value: 'quick' })
  })

  it('T47: a call without any timeout (defaultTimeoutMs: false) and without listeners arms no timer at all', async () => {
    vi.useFakeTimers()
    const { ctx } = setup({ defaultTimeoutMs: false })
    const gate = deferred<string>()
    ctx.tools.register({ ...tool('plain'), execute: () => gate.promise })
    const pending = ctx.tools.execute(call('plain'))
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(0)
    gate.resolve('v')
    expect(codeOf(await pending)).toBe('OK')
  })

  it('T47: by default a tool without timeoutMs times out after five minutes (300 000 ms), not before', async () => {
    vi.useFakeTimers()
    const { ctx } = setup()
    ctx.tools.register({ ...tool('hung'), execute: () => new Promise<never>(() => {}) })
    let done = false
    const hung = ctx.tools.execute(call('hung'))
    void hung.then(() => (done = true))
    await vi.advanceTimersByTimeAsync(299_999)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await hung).toMatchObject({
      error: { message: 'Tool "hung" timed out after 300000 ms.', info: { code: 'TIMEOUT' } },
    })
  })

  it('T47: defaultTimeoutMs 0, Infinity or false turns the default off; a tool with timeoutMs 0 or Infinity opts out of it', async () => {
    vi.useFakeTimers()
    for (const off of [0, Infinity, false] as const) {
      const { ctx } = setup({ defaultTimeoutMs: off })
      ctx.tools.register({ ...tool('hung'), execute: () => new Promise<never>(() => {}) })
      let done = false
      void ctx.tools.execute(call('hung')).then(() => (done = true))
      await vi.advanceTimersByTimeAsync(3_600_000)
      expect(done).toBe(false)
      expect(vi.getTimerCount()).toBe(0)
    }
    const { ctx } = setup({ defaultTimeoutMs: 1_000 })
    for (const own of [0, Infinity]) {
      const name = `forever_${own === 0 ? 'zero' : 'inf'}`
      ctx.tools.register({ ...tool(name), timeoutMs: own, execute: () => new Promise<never>(() => {}) })
      let done = false
      void ctx.tools.execute(call(name)).then(() => (done = true))
      await vi.advanceTimersByTimeAsync(3_600_000)
      expect(done).toBe(false)
    }
    expect(() => setup({ defaultTimeoutMs: -1 })).toThrow(
      'options.defaultTimeoutMs must be a positive integer',
    )
    expect(() => ctx.tools.register({ ...tool('neg'), timeoutMs: -5 })).toThrow(
      'or 0 / Infinity for no timeout',
    )
  })

  it('T17: the tool’s own timeoutMs wins over the runtime default', async () => {
    vi.useFakeTimers()
    const { ctx } = setup({ defaultTimeoutMs: 1_000 })
    ctx.tools.register({ ...tool('own'), timeoutMs: 50, execute: () => new Promise<never>(() => {}) })
    ctx.tools.register({ ...tool('long'), timeoutMs: 5_000, execute: () => new Promise<never>(() => {}) })
    const own = ctx.tools.execute(call('own'))
    const long = ctx.tools.execute(call('long'))
    let longDone = false
    void long.then(() => (longDone = true))
    await vi.advanceTimersByTimeAsync(50)
    expect(await own).toMatchObject({ error: { message: 'Tool "own" timed out after 50 ms.' } })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(longDone).toBe(false)
    await vi.advanceTimersByTimeAsync(4_000)
    expect(await long).toMatchObject({ error: { message: 'Tool "long" timed out after 5000 ms.' } })
  })

  it('T17: a body that honours its signal on timeout logs one warning, not two', async () => {
    vi.useFakeTimers()
    const { ctx, logger } = setup()
    ctx.tools.register({
      ...tool('polite'),
      timeoutMs: 20,
      execute: (_a: unknown, exec: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          exec.signal.addEventListener('abort', () => reject(exec.signal.reason)),
        ),
    })
    const pending = ctx.tools.execute(call('polite'))
    await vi.advanceTimersByTimeAsync(20)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    await vi.advanceTimersByTimeAsync(100)
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1)
  })

  it('T17: a timeout through user wrappers (the waterfall path) aborts the body and answers TIMEOUT', async () => {
    vi.useFakeTimers()
    const { ctx } = setup()
    let bodySignal: AbortSignal | undefined
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 40,
      execute: (_a: unknown, exec: { signal: AbortSignal }) => {
        bodySignal = exec.signal
        return new Promise<never>(() => {})
      },
    })
    const seen: string[] = []
    ctx.on('tools/execute', async (c, next) => {
      const result = await next()
      seen.push(`${c.timeoutMs}:${result.isError ? result.error.info?.code : 'OK'}`)
      return result
    })
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(40)
    expect(codeOf(await pending)).toBe('TIMEOUT')
    expect(bodySignal?.aborted).toBe(true)
    expect(seen).toEqual(['40:TIMEOUT'])
  })
})

describe('every call has a deadline: timeoutMs + the policy budget (documented gaps, issue 8)', () => {
  const stages = [
    ['a tools/pre-execute listener', 'pre'],
    ['a guard', 'guard'],
    ['a tools/execute wrapper', 'wrapper-before'],
    ['a tools/execute wrapper', 'wrapper-after'],
    ['a tools/post-execute listener', 'post'],
  ] as const

  it.each(stages)(
    'a hanging %s (%s) with no caller signal fails the call with PIPELINE_FAILED after policyTimeoutMs',
    async (label, where) => {
      vi.useFakeTimers()
      const { ctx } = setup({ policyTimeoutMs: 1_000 })
      let ran = 0
      ctx.tools.register(tool('t', () => ++ran))
      const never = () => new Promise<never>(() => {})
      if (where === 'pre') ctx.on('tools/pre-execute', never)
      if (where === 'guard') ctx.tools.guard(never)
      if (where === 'wrapper-before') ctx.on('tools/execute', never)
      if (where === 'wrapper-after')
        ctx.on('tools/execute', async (_c, next) => {
          await next()
          return never()
        })
      if (where === 'post') ctx.on('tools/post-execute', never)
      let result: unknown
      void ctx.tools.execute(call('t')).then((r) => (result = r))
      await vi.advanceTimersByTimeAsync(999)
      expect(result).toBeUndefined()
      await vi.advanceTimersByTimeAsync(1)
      expect(result).toMatchObject({
        isError: true,
        error: {
          message: `Tool "t" failed: ${label} did not finish within the 1000 ms policy budget.`,
          info: { code: 'PIPELINE_FAILED', name: 'PolicyTimeout' },
        },
      })
      expect(ran).toBe(where === 'wrapper-after' || where === 'post' ? 1 : 0)
      expect(vi.getTimerCount()).toBe(0)
    },
  )

  it('the budget is spent across stages, not per stage', async () => {
    vi.useFakeTimers()
    const { ctx } = setup({ policyTimeoutMs: 1_000 })
    ctx.tools.register(tool('t'))
    ctx.on('tools/pre-execute', async (_c, next) => {
      await new Promise((r) => setTimeout(r, 600))
      return next()
    })
    ctx.on('tools/post-execute', async (_c, next) => {
      await new Promise((r) => setTimeout(r, 600))
      return next()
    })
    const pending = ctx.tools.execute(call('t'))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(await pending).toMatchObject({ error: { info: { name: 'PolicyTimeout' } } })
  })

  it('the body’s own time and a person answering an approval do not count against the budget', async () => {
    vi.useFakeTimers()
    const { ctx } = setup({ policyTimeoutMs: 100 })
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 10_000,
      execute: () => new Promise((r) => setTimeout(() => r('finally'), 5_000)),
    })
    ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    ctx.provide('approval', {
      request: () => new Promise((r) => setTimeout(() => r({ type: 'allowed-once' }), 3_000)),
    })
    ctx.on('tools/post-execute', async (_c, next) => {
      await new Promise((r) => setTimeout(r, 60))
      return next()
    })
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(8_100)
    expect(await pending).toMatchObject({ isError: false, value: 'finally' })
  })

  it.each([
    ['with a caller signal', true],
    ['without a caller signal', false],
  ])(
    'the budget is paused while the body runs inside a wrapper (%s): a body longer than the budget succeeds and its signal stays quiet',
    async (_label, withSignal) => {
      vi.useFakeTimers()
      const { ctx } = setup({ policyTimeoutMs: 100 })
      const seen: boolean[] = []
      ctx.tools.register({
        ...tool('slow'),
        timeoutMs: 10_000,
        execute: async (_a: unknown, exec: { signal: AbortSignal }) => {
          await new Promise((r) => setTimeout(r, 5_000))
          seen.push(exec.signal.aborted)
          return 'finally'
        },
      })
      // a wrapper runs on the budget before and after next(); the body between is not its time
      ctx.on('tools/pre-execute', async (_c, next) => next())
      ctx.on('tools/execute', async (_c, next) => next())
      const signal = new AbortController().signal
      const pending = ctx.tools.execute(call('slow', {}, withSignal ? { signal } : {}))
      await vi.advanceTimersByTimeAsync(5_100)
      expect(await pending).toMatchObject({ isError: false, value: 'finally' })
      expect(seen).toEqual([false])
    },
  )

  it('options are validated', () => {
    expect(() => setup({ policyTimeoutMs: 0 })).toThrow(/options.policyTimeoutMs must be a positive integer/)
    expect(() => setup({ abortGraceMs: -1 })).toThrow(/options.abortGraceMs must be a non-negative integer/)
    expect(() => setup({ lateBodyCapMs: 1.5 })).toThrow(/options.lateBodyCapMs must be a positive integer/)
    expect(() => setup({ abortGraceMs: 0 })).not.toThrow()
  })
})
