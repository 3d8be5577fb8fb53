import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tick, tool } from './fixtures.ts'

const unhandled: unknown[] = []
const track = (reason: unknown): void => void unhandled.push(reason)
beforeEach(() => {
  unhandled.length = 0
  process.on('unhandledRejection', track)
})
afterEach(() => {
  process.off('unhandledRejection', track)
})
const drain = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await tick()
}

type Stage = 'tools/pre-execute' | 'tools/execute' | 'tools/post-execute'
const stages: Stage[] = ['tools/pre-execute', 'tools/execute', 'tools/post-execute']

function world() {
  const env = setup()
  let runs = 0
  env.ctx.tools.register(tool('t', () => ++runs))
  const observed: ToolExecutionResult[] = []
  env.ctx.on('tools/result', (result) => void observed.push(result))
  return { ...env, runs: () => runs, observed }
}

describe('T41: next() misuse in the pipeline waterfalls', () => {
  it.each(stages)(
    'T41: next() called twice in %s → PIPELINE_FAILED, one result, no unhandled rejection',
    async (stage) => {
      const { ctx, runs, observed } = world()
      ctx.on(stage, ((_call: unknown, next: () => Promise<unknown>) => {
        void next()
        return next()
      }) as never)
      const result = await ctx.tools.execute(call('t'))
      expect(codeOf(result)).toBe('PIPELINE_FAILED')
      expect(result.isError && result.error.message).toMatch(/called next\(\) more than once/)
      expect(runs()).toBeLessThanOrEqual(1)
      await drain()
      expect(observed).toEqual([result])
      expect(unhandled).toEqual([])
    },
  )

  it.each(stages)(
    'T41: a second next() after awaiting the first in %s still fails the call',
    async (stage) => {
      const { ctx, runs } = world()
      ctx.on(stage, (async (_call: unknown, next: () => Promise<unknown>) => {
        const first = await next()
        void next()
        return first
      }) as never)
      expect(codeOf(await ctx.tools.execute(call('t')))).toBe('PIPELINE_FAILED')
      // a failed pre-execute stops the call before the body; the later stages ran it exactly once
      expect(runs()).toBe(stage === 'tools/pre-execute' ? 0 : 1)
      await drain()
      expect(unhandled).toEqual([])
    },
  )

  it('T41: a wrapper that calls next() only after it answered never runs the body', async () => {
    const { ctx, runs, logger, observed } = world()
    ctx.on('tools/execute', (_call, next) => {
      setImmediate(() => void next())
      return { isError: false, content: [{ type: 'text', text: 'from the wrapper' }] }
    })
    const result = await ctx.tools.execute(call('t'))
    expect(result).toEqual({ isError: false, content: [{ type: 'text', text: 'from the wrapper' }] })
    await drain()
    expect(runs()).toBe(0)
    expect(observed).toEqual([result])
    expect(logger.entries.some((e) => e.level === 'error' && /misused next\(\)/.test(e.message))).toBe(true)
    expect(unhandled).toEqual([])
  })

  it('T41: a wrapper that drops next() while the body fails causes no unhandled rejection', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      tool('boom', () => {
        throw new Error('body failed')
      }),
    )
    ctx.on('tools/execute', (_call, next) => {
      void next()
      return { isError: false, content: [] }
    })
    expect(codeOf(await ctx.tools.execute(call('boom')))).toBe('OK')
    await drain()
    expect(unhandled).toEqual([])
  })
})
