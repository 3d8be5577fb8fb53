import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import { defineTool, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import { deferred, setup, tick } from './fixtures.ts'

/** A parallel-safe tool whose bodies wait until `releaseAll`; `peak` is the most bodies seen at once. */
function counted(ctx: Context) {
  const gate = deferred()
  let running = 0
  let peak = 0
  ctx.tools.register(
    defineTool({
      name: 'p',
      description: 'parallel',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async () => {
        running++
        peak = Math.max(peak, running)
        await gate.promise
        running--
        return 'ok'
      },
    }),
  )
  return { releaseAll: () => gate.resolve(), peak: () => peak }
}

const calls = (n: number): ToolExecutionInput[] =>
  Array.from({ length: n }, (_, i) => ({ callId: `c${i}`, name: 'p', arguments: '{}' }))

async function peakOf(ctx: Context, n: number, options?: { maxParallel?: number }): Promise<number> {
  const c = counted(ctx)
  const pending = ctx.tools.executeBatch(calls(n), options)
  for (let i = 0; i < 5; i++) await tick()
  c.releaseAll()
  await pending
  return c.peak()
}

describe('executeBatch pool size (its own setting, T23)', () => {
  it('T23: installTools({ maxParallelToolCalls }) sets the pool; a call may name its own', async () => {
    expect(await peakOf(setup({ maxParallelToolCalls: 3 }).ctx, 8)).toBe(3)
    expect(await peakOf(setup({ maxParallelToolCalls: 3 }).ctx, 8, { maxParallel: 5 })).toBe(5)
  })

  it('T23: the default pool is 10', async () => {
    expect(await peakOf(setup().ctx, 14)).toBe(10)
  })

  it("never reads a higher package's service: ctx.agentLoop.config does not change the pool", async () => {
    const { ctx } = setup({ maxParallelToolCalls: 4 })
    const agent = ctx.createScope({ name: 'agent' })
    agent.provide('agentLoop', { config: { maxParallelToolCalls: 1, maxSteps: 1 }, session: {} as never })
    expect(await peakOf(agent, 6)).toBe(4)
  })

  it('maxParallelToolCalls is validated like the other install options', () => {
    for (const bad of [0, -1, 2.5, '4', Number.NaN]) {
      expect(() => setup({ maxParallelToolCalls: bad as number })).toThrow(
        /^installTools\(ctx, options\): options\.maxParallelToolCalls must be a positive integer ≤ 2147483647, got /,
      )
    }
  })

  it('names what is wrong with its own arguments', async () => {
    const { ctx } = setup()
    counted(ctx)
    await expect(ctx.tools.executeBatch(calls(1), { maxParallel: 0 })).rejects.toThrow(
      'tools.executeBatch(inputs, options): options.maxParallel must be a positive integer, got the number 0',
    )
    await expect(ctx.tools.executeBatch(calls(1), null as never)).rejects.toThrow(
      'tools.executeBatch(inputs, options): options must be an object, got null',
    )
    await expect(ctx.tools.executeBatch('c0' as never)).rejects.toThrow(
      /tools\.executeBatch\(inputs, options\): inputs must be an array, got /,
    )
    await expect(ctx.tools.executeBatch([...calls(1), ...calls(1)])).rejects.toThrow(
      'tools.executeBatch(inputs, options): inputs[1].callId "c0" is used twice in one batch',
    )
  })
})
