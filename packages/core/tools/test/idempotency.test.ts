import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  defineTool,
  installTools,
  retryable,
  withRetry,
  type BodyStart,
  type ToolCallEffects,
  type ToolExecContext,
} from '@deepseek-ai/dsh-tools'

function setup() {
  const ctx = createContext()
  installTools(ctx)
  const seen: string[] = []
  const order: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'ship',
      description: 'Ship a parcel.',
      parameters: z.object({ to: z.string() }),
      effects: 'external',
      execute: ({ to }, exec: ToolExecContext) => {
        order.push('body')
        seen.push(exec.idempotencyKey)
        return `shipped to ${to}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'look',
      description: 'Look something up.',
      parameters: z.object({}),
      execute: (_args, exec) => {
        order.push('look')
        seen.push(exec.idempotencyKey)
        return 'seen'
      },
    }),
  )
  return { ctx, seen, order }
}

describe('idempotency keys and the body-start hook (T49, T50)', () => {
  it('T49: the key is <scope>:<callId>, the call id without a scope, the same on every run of a call', async () => {
    const { ctx, seen } = setup()
    const effects: ToolCallEffects = Object.freeze({ idempotencyScope: 'sess-1' })
    await ctx.tools.execute({ callId: 'c1', name: 'ship', arguments: '{"to":"Oslo"}', effects })
    await ctx.tools.execute({ callId: 'c1', name: 'ship', arguments: '{"to":"Oslo"}', effects })
    await ctx.tools.execute({ callId: 'c2', name: 'look', arguments: '{}', effects })
    await ctx.tools.execute({ callId: 'c3', name: 'look', arguments: '{}' })
    expect(seen).toEqual(['sess-1:c1', 'sess-1:c1', 'sess-1:c2', 'c3'])
  })

  it('T49: withRetry hands every attempt the one key', async () => {
    const ctx = createContext()
    installTools(ctx)
    const keys: string[] = []
    let failures = 2
    ctx.tools.register(
      withRetry(
        defineTool({
          name: 'put',
          description: 'PUT a record.',
          parameters: z.object({}),
          idempotent: true,
          execute: (_args, exec) => {
            keys.push(exec.idempotencyKey)
            if (failures-- > 0) throw retryable(new Error('503'))
            return 'ok'
          },
        }),
        { maxAttempts: 3, baseDelayMs: 1, random: () => 0 },
      ),
    )
    const result = await ctx.tools.execute({
      callId: 'p1',
      name: 'put',
      arguments: '{}',
      effects: { idempotencyScope: 's' },
    })
    expect(result.isError).toBe(false)
    expect(keys).toEqual(['s:p1', 's:p1', 's:p1'])
  })

  it('T50: onBodyStart runs after policy and before the body of an external tool only, and is awaited', async () => {
    const { ctx, order } = setup()
    ctx.on('tools/pre-execute', (call, next) => {
      order.push(`policy ${call.toolName}`)
      return next()
    })
    const starts: BodyStart[] = []
    const effects: ToolCallEffects = Object.freeze({
      idempotencyScope: 's',
      onBodyStart: async (start: BodyStart) => {
        order.push('marker')
        await new Promise((resolve) => setTimeout(resolve, 5))
        order.push('marker durable')
        starts.push(start)
      },
    })
    await ctx.tools.execute({ callId: 'c1', name: 'ship', arguments: '{"to":"Rome"}', effects })
    await ctx.tools.execute({ callId: 'c2', name: 'look', arguments: '{}', effects })
    expect(order).toEqual(['policy ship', 'marker', 'marker durable', 'body', 'policy look', 'look'])
    expect(starts).toEqual([{ callId: 'c1', toolName: 'ship', idempotent: false, idempotencyKey: 's:c1' }])
  })

  it('T50: a marker that cannot be recorded keeps the body from running: TOOL_FAILED naming why', async () => {
    for (const onBodyStart of [
      () => {
        throw new Error('disk full')
      },
      () => Promise.reject(new Error('disk full')),
    ]) {
      const { ctx, order } = setup()
      const result = await ctx.tools.execute({
        callId: 'c1',
        name: 'ship',
        arguments: '{"to":"Rome"}',
        effects: Object.freeze({ idempotencyScope: 's', onBodyStart }),
      })
      expect(order).toEqual([])
      expect(result).toMatchObject({ isError: true, error: { info: { code: 'TOOL_FAILED' } } })
      expect(result.isError && result.error.message).toMatch(
        /did not run: its start could not be recorded \(.*disk full/,
      )
    }
  })

  it('T49/T50: a bad effects field is refused by name; a mutable one is copied once checked', async () => {
    const { ctx, seen } = setup()
    for (const [effects, message] of [
      [7, /effects must be an object/],
      [{ idempotencyScope: '' }, /effects\.idempotencyScope must be a non-empty string/],
      [{ idempotencyScope: 's', onBodyStart: 'x' }, /effects\.onBodyStart must be a function/],
    ] as const) {
      await expect(
        ctx.tools.execute({ callId: 'c1', name: 'look', arguments: '{}', effects: effects as never }),
      ).rejects.toThrow(message)
    }
    // a getter that answers differently on each read cannot change the key after the check
    let reads = 0
    const shifty = {
      get idempotencyScope() {
        reads += 1
        return reads === 1 ? 'checked' : 'swapped'
      },
    }
    await ctx.tools.execute({ callId: 'c9', name: 'look', arguments: '{}', effects: shifty })
    expect(seen).toEqual(['checked:c9'])
  })

  it("T50: a definition's effects must be 'external' when present", () => {
    const { ctx } = setup()
    expect(() =>
      ctx.tools.register({
        name: 'bad',
        description: 'bad',
        parameters: { type: 'object' },
        validate: () => ({ ok: true, value: {} }),
        execute: () => 'x',
        effects: 'internal' as never,
      }),
    ).toThrow(/definition\.effects must be 'external' when present/)
  })
})
