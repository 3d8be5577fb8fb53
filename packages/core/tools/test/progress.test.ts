import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolExecContext, type ToolProgress } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup } from './fixtures.ts'

// exec.reportProgress: a tools/progress event per report (rate-limited per call), never part of
// the result, never after it; bad reports are TypeErrors naming the field.

function reporting(
  name: string,
  body: (exec: ToolExecContext) => unknown | Promise<unknown>,
): ReturnType<typeof defineTool> {
  return defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({}),
    execute: (_args, exec) => body(exec),
  })
}

function listen(ctx: ReturnType<typeof setup>['ctx']): ToolProgress[] {
  const seen: ToolProgress[] = []
  ctx.on('tools/progress', (progress) => {
    seen.push(progress)
  })
  return seen
}

describe('exec.reportProgress', () => {
  it('T48: each report is a frozen tools/progress event naming its call; the result holds none of it', async () => {
    const { ctx } = setup({ progressIntervalMs: 0 })
    const seen = listen(ctx)
    ctx.tools.register(
      reporting('copy', async (exec) => {
        exec.reportProgress({ progress: 1, total: 3, message: 'first' })
        await Promise.resolve()
        exec.reportProgress({ progress: 2, total: 3 })
        exec.reportProgress({ progress: 3, total: 3, message: 'done' })
        return { copied: 3 }
      }),
    )
    const input = call('copy', {}, { turn: 2, step: 5 })
    const result = await ctx.tools.execute(input)
    expect(result.isError).toBe(false)
    expect(JSON.stringify(result)).not.toMatch(/first|done"/)
    expect(seen).toEqual([
      { callId: input.callId, toolName: 'copy', turn: 2, step: 5, progress: 1, total: 3, message: 'first' },
      { callId: input.callId, toolName: 'copy', turn: 2, step: 5, progress: 2, total: 3, message: undefined },
      { callId: input.callId, toolName: 'copy', turn: 2, step: 5, progress: 3, total: 3, message: 'done' },
    ])
    for (const event of seen) expect(Object.isFrozen(event)).toBe(true)
  })

  it('T48: reports closer together than progressIntervalMs are dropped, except the one that reaches total', async () => {
    vi.useFakeTimers({ toFake: ['performance'] })
    try {
      const { ctx } = setup({ progressIntervalMs: 100 })
      const seen = listen(ctx)
      ctx.tools.register(
        reporting('chatty', (exec) => {
          for (let i = 1; i <= 1000; i++) {
            exec.reportProgress({ progress: i, total: 1000 })
            if (i % 250 === 0) vi.advanceTimersByTime(100)
          }
          return 'ok'
        }),
      )
      await ctx.tools.execute(call('chatty'))
      // the first, one after each 100 ms, and the last
      expect(seen.map((event) => event.progress)).toEqual([1, 251, 501, 751, 1000])
    } finally {
      vi.useRealTimers()
    }
  })

  it('T48: a report after the result (a body that outlived its timeout) reaches no listener', async () => {
    const { ctx } = setup({ progressIntervalMs: 0 })
    const seen = listen(ctx)
    let late: ToolExecContext | undefined
    let release!: () => void
    ctx.tools.register({
      ...reporting('slow', async (exec) => {
        late = exec
        await new Promise<void>((resolve) => (release = resolve))
        return 'late'
      }),
      timeoutMs: 20,
    })
    const result = await ctx.tools.execute(call('slow'))
    expect(codeOf(result)).toBe('TIMEOUT')
    late!.reportProgress({ progress: 1 })
    release()
    expect(seen).toEqual([])
  })

  it('T48: a malformed report is a TypeError naming the field, and fails the body like any throw', async () => {
    const { ctx } = setup()
    listen(ctx)
    const bad = [
      [undefined, /report must be an object/],
      [{ progress: '1' }, /report\.progress must be a finite number, got .*1/],
      [{ progress: Number.NaN }, /report\.progress must be a finite number/],
      [{ progress: 1, total: Infinity }, /report\.total must be a finite number/],
      [{ progress: 1, message: 7 }, /report\.message must be a string/],
    ] as const
    for (const [i, [report, message]] of bad.entries()) {
      let thrown: unknown
      ctx.tools.register(
        reporting(`bad${i}`, (exec) => {
          try {
            exec.reportProgress(report as never)
          } catch (error) {
            thrown = error
            throw error
          }
          return 'unreachable'
        }),
      )
      const result = await ctx.tools.execute(call(`bad${i}`))
      expect(codeOf(result)).toBe('TOOL_FAILED')
      expect(thrown).toBeInstanceOf(TypeError)
      expect((thrown as Error).message).toMatch(message)
    }
  })

  it('T48: a getter on the report is read once, so the event says what the check saw', async () => {
    const { ctx } = setup({ progressIntervalMs: 0 })
    const seen = listen(ctx)
    let reads = 0
    ctx.tools.register(
      reporting('tricky', (exec) => {
        exec.reportProgress({
          get progress() {
            reads += 1
            return reads === 1 ? 1 : Number.NaN
          },
        })
        return 'ok'
      }),
    )
    await ctx.tools.execute(call('tricky'))
    expect(reads).toBe(1)
    expect(seen.map((event) => event.progress)).toEqual([1])
  })

  it('T48: a long message is cut to 500 characters; whatever the reports, the call still has exactly one result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ progress: fc.integer(), message: fc.string({ maxLength: 900 }) }), {
          maxLength: 20,
        }),
        async (reports) => {
          const { ctx } = setup({ progressIntervalMs: 0 })
          const seen = listen(ctx)
          const results: unknown[] = []
          ctx.on('tools/result', (result) => {
            results.push(result)
          })
          ctx.tools.register(
            reporting('many', (exec) => {
              for (const report of reports) exec.reportProgress(report)
              return 'ok'
            }),
          )
          await ctx.tools.execute(call('many'))
          expect(results).toHaveLength(1)
          expect(seen).toHaveLength(reports.length)
          for (const [i, event] of seen.entries()) {
            const message = reports[i]!.message
            expect(event.message).toBe(message.length <= 500 ? message : `${message.slice(0, 499)}…`)
          }
        },
      ),
      { numRuns: 50 },
    )
  })

  it('T48: progressIntervalMs must be a non-negative integer', () => {
    expect(() => setup({ progressIntervalMs: -1 })).toThrow(
      /options\.progressIntervalMs must be a non-negative integer/,
    )
    expect(() => setup({ progressIntervalMs: 1.5 as number })).toThrow(/progressIntervalMs/)
  })
})

describe('progressResetsTimeout', () => {
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

  /** A body that reports every 20 ms, `reports` times, then answers. */
  function steady(name: string, reports: number, extra: object) {
    return {
      ...reporting(name, async (exec) => {
        for (let i = 1; i <= reports; i++) {
          await sleep(20)
          exec.reportProgress({ progress: i })
        }
        return { reports }
      }),
      timeoutMs: 50,
      ...extra,
    }
  }

  // the direct path (only the shipped timeout wrapper) and the waterfall (another wrapper too)
  for (const path of ['direct', 'wrapper'] as const) {
    it(`T48 (${path}): progress restarts the timeout: a body that reports every 20 ms outlives a 50 ms timeout; without the flag it does not`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
      try {
        const { ctx } = setup()
        if (path === 'wrapper') ctx.on('tools/execute', (call, next) => next(call))
        ctx.tools.register(steady('resets', 10, { progressResetsTimeout: { maxMs: 1000 } }))
        ctx.tools.register(steady('plain', 10, {}))
        const resets = ctx.tools.execute(call('resets'))
        const plain = ctx.tools.execute(call('plain'))
        await vi.advanceTimersByTimeAsync(300)
        const [a, b] = await Promise.all([resets, plain])
        expect(a.isError).toBe(false)
        expect(codeOf(b)).toBe('TIMEOUT')
      } finally {
        vi.useRealTimers()
      }
    })

    it(`T48 (${path}): maxMs bounds the whole body whatever it reports; silence past timeoutMs times out`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
      try {
        const { ctx } = setup()
        if (path === 'wrapper') ctx.on('tools/execute', (call, next) => next(call))
        ctx.tools.register(steady('chatty', 1000, { progressResetsTimeout: { maxMs: 300 } }))
        ctx.tools.register({
          ...reporting('quiet', async (exec) => {
            exec.reportProgress({ progress: 1 })
            await sleep(1000)
            return 'late'
          }),
          timeoutMs: 50,
          progressResetsTimeout: { maxMs: 1000 },
        })
        let chattyAt: number | undefined
        let quietAt: number | undefined
        const chatty = ctx.tools.execute(call('chatty')).then((result) => {
          chattyAt = performance.now()
          return result
        })
        const quiet = ctx.tools.execute(call('quiet')).then((result) => {
          quietAt = performance.now()
          return result
        })
        const started = performance.now()
        await vi.advanceTimersByTimeAsync(1000)
        expect(codeOf(await chatty)).toBe('TIMEOUT')
        expect(codeOf(await quiet)).toBe('TIMEOUT')
        expect(chattyAt! - started).toBeGreaterThanOrEqual(300)
        expect(chattyAt! - started).toBeLessThan(320)
        expect(quietAt! - started).toBeGreaterThanOrEqual(50)
        expect(quietAt! - started).toBeLessThan(60)
      } finally {
        vi.useRealTimers()
      }
    })

    it(`T48 (${path}): a body that never reports times out at timeoutMs, not at maxMs`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
      try {
        const { ctx } = setup()
        if (path === 'wrapper') ctx.on('tools/execute', (call, next) => next(call))
        ctx.tools.register({
          ...reporting('silent', async () => {
            await sleep(1000)
            return 'late'
          }),
          timeoutMs: 50,
          progressResetsTimeout: { maxMs: 1000 },
        })
        let endedAt: number | undefined
        const started = performance.now()
        const silent = ctx.tools.execute(call('silent')).then((result) => {
          endedAt = performance.now()
          return result
        })
        await vi.advanceTimersByTimeAsync(1000)
        expect(codeOf(await silent)).toBe('TIMEOUT')
        expect(endedAt! - started).toBeGreaterThanOrEqual(50)
        expect(endedAt! - started).toBeLessThan(60)
      } finally {
        vi.useRealTimers()
      }
    })
  }

  it('T48: progressResetsTimeout must be { maxMs: positive integer }', () => {
    const { ctx } = setup()
    for (const [i, bad] of [{}, { maxMs: 0 }, { maxMs: 1.5 }, 100, null].entries()) {
      expect(() =>
        ctx.tools.register({
          ...reporting(`bad${i}`, () => 1),
          progressResetsTimeout: bad as never,
        }),
      ).toThrow(/definition\.progressResetsTimeout must be \{ maxMs: a positive integer/)
    }
  })
})
