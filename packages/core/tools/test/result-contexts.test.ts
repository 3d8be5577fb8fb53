import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

afterEach(() => {
  vi.useRealTimers()
})

/** A body that defers a secret and concludes the turn; a wrapper that adds its own context. */
function world() {
  const env = setup()
  env.ctx.tools.register(
    defineTool({
      name: 'lookup',
      description: 'Look something up',
      parameters: z.object({}),
      execute: (_args, exec) => {
        exec.deferContext('body: the API key is sk-123')
        exec.concludeTurn()
        return 'found'
      },
    }),
  )
  env.ctx.on('tools/execute', async (_c, next) => {
    const result = await next()
    return { ...result, additionalContexts: [...(result.additionalContexts ?? []), 'wrapper: took 3 ms'] }
  })
  return env
}

describe('T37: post-execute sees, drops or replaces the body’s deferred contexts', () => {
  it('T37: a post-execute listener sees the deferred contexts in the result; accept keeps them in order wrapper, body, policy', async () => {
    const { ctx } = world()
    let seen: ToolExecutionResult | undefined
    ctx.on('tools/post-execute', (c) => {
      seen = c.result
      return { type: 'accept', additionalContexts: ['policy: reviewed'] }
    })
    const result = await ctx.tools.execute(call('lookup'))
    expect(seen?.additionalContexts).toEqual(['wrapper: took 3 ms', 'body: the API key is sk-123'])
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'found' }],
      value: 'found',
      additionalContexts: ['wrapper: took 3 ms', 'body: the API key is sk-123', 'policy: reviewed'],
      concludesTurn: true,
    })
  })

  it('T37: block drops them; only the block’s own contexts go on', async () => {
    const { ctx } = world()
    ctx.on('tools/post-execute', () => ({
      type: 'block',
      feedback: 'withheld',
      additionalContexts: ['policy: a secret was withheld'],
    }))
    const result = await ctx.tools.execute(call('lookup'))
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'withheld' }],
      error: { message: 'withheld', info: { name: 'Blocked', code: 'BLOCKED' } },
      additionalContexts: ['policy: a secret was withheld'],
    })
    expect(JSON.stringify(result)).not.toContain('sk-123')
  })

  it('T37: accept may replace them (redaction) and still append its own', async () => {
    const { ctx } = world()
    ctx.on('tools/post-execute', (c) => ({
      type: 'accept',
      replaceContexts: (c.result.additionalContexts ?? []).map((text) =>
        text.replace(/sk-\w+/, '[redacted]'),
      ),
      additionalContexts: ['policy: redacted'],
    }))
    expect((await ctx.tools.execute(call('lookup'))).additionalContexts).toEqual([
      'wrapper: took 3 ms',
      'body: the API key is [redacted]',
      'policy: redacted',
    ])
  })

  it('T37: accept with replaceContexts: [] withholds every context', async () => {
    const { ctx } = world()
    ctx.on('tools/post-execute', () => ({ type: 'accept', replaceContexts: [] }))
    const result = await ctx.tools.execute(call('lookup'))
    expect('additionalContexts' in result).toBe(false)
    expect(result).toMatchObject({ isError: false, concludesTurn: true })
  })

  it('T37: a post-execute listener that fails lets no context through', async () => {
    const { ctx } = world()
    ctx.on('tools/post-execute', () => {
      throw new Error('DLP service down')
    })
    const result = await ctx.tools.execute(call('lookup'))
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(result.additionalContexts).toBeUndefined()
  })

  it('T37: an invalid replaceContexts is an invalid decision', async () => {
    const { ctx } = world()
    ctx.on('tools/post-execute', () => ({ type: 'accept', replaceContexts: [1] }) as never)
    expect(codeOf(await ctx.tools.execute(call('lookup')))).toBe('PIPELINE_FAILED')
  })

  it('T37: a listener mutating its decision’s arrays after returning changes nothing', async () => {
    const { ctx } = world()
    const mine = ['policy: ok']
    ctx.on('tools/post-execute', () => {
      setImmediate(() => mine.push('policy: sneaked in later'))
      return { type: 'accept', additionalContexts: mine }
    })
    const result = await ctx.tools.execute(call('lookup'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(result.additionalContexts?.at(-1)).toBe('policy: ok')
  })

  it('T37: context a body defers after its call was answered (a timeout) is dropped, never delivered', async () => {
    vi.useFakeTimers()
    const { ctx, logger } = setup()
    let defer: ((text: string) => void) | undefined
    ctx.tools.register({
      ...tool('slow'),
      timeoutMs: 10,
      execute: (_a: unknown, exec: { deferContext(text: string): void }) => {
        defer = (text) => exec.deferContext(text)
        return new Promise<never>(() => {})
      },
    })
    const pending = ctx.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(10)
    const result = await pending
    defer!('too late')
    expect(codeOf(result)).toBe('TIMEOUT')
    expect(result.additionalContexts).toBeUndefined()
    expect(
      logger.entries.some((e) => /deferred context after its result was produced; dropped/.test(e.message)),
    ).toBe(true)
  })

  it('accept({ value }) on a failed result keeps it a failure without a value', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      tool('bad', () => {
        throw new Error('nope')
      }),
    )
    ctx.on('tools/post-execute', () => ({ type: 'accept', value: 'pretend it worked' }))
    const result = await ctx.tools.execute(call('bad'))
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "bad" failed: nope' }],
      error: { message: 'Tool "bad" failed: nope', info: { name: 'ToolFailed', code: 'TOOL_FAILED' } },
    })
  })
})
