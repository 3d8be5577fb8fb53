import { describe, expect, it } from 'vitest'
import { isTextResultContent } from '@deepseek-ai/dsh-llm'
import { z } from 'zod'
import {
  defineTool,
  TOOL_ABORTED_BEFORE_DISPATCH,
  ToolErrorCodes,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

describe('result contract', () => {
  it('T14: the returned and observed result is one deep-frozen, lossless-JSON object', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => ({ nested: { list: [1, 'two', null] } })))
    const observed: ToolExecutionResult[] = []
    ctx.on('tools/result', (result) => void observed.push(result))
    const result = await ctx.tools.execute(call('t'))
    expect(observed[0]).toBe(result)
    expect(isDeepFrozen(result)).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('T58: a default result content is built by textResultContent, so a session keeps it by reference', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => ({ sum: 3 })))
    ctx.tools.register(
      defineTool({
        name: 'blocks',
        description: 'own content',
        parameters: z.object({}),
        execute: () => 1,
        toContent: () => [{ type: 'text', text: 'mine' }],
      }),
    )
    const result = await ctx.tools.execute(call('t'))
    expect(result.content).toEqual([{ type: 'text', text: '{"sum":3}' }])
    expect(isTextResultContent(result.content)).toBe(true)
    // content a tool's own toContent made is not the package's: a session checks and copies it
    expect(isTextResultContent((await ctx.tools.execute(call('blocks'))).content)).toBe(false)
  })

  it('T14: the result is detached from the value the body returned', async () => {
    const { ctx } = setup()
    const mine = { n: 1 }
    ctx.tools.register(tool('t', () => mine))
    const result = await ctx.tools.execute(call('t'))
    mine.n = 2
    expect(result).toMatchObject({ value: { n: 1 } })
  })

  it.each([
    ['a BigInt', () => ({ n: 10n }), 'value.n'],
    ['NaN', () => ({ n: Number.NaN }), 'value.n'],
    [
      'a cycle',
      () => {
        const o: Record<string, unknown> = {}
        o.self = o
        return o
      },
      'value.self',
    ],
    ['a function', () => ({ f: () => 1 }), 'value.f'],
    ['a Date', () => ({ d: new Date(0) }), 'value.d'],
    ['a Map', () => new Map(), 'value'],
    [
      'a throwing getter',
      () => ({
        get boom() {
          throw new Error('getter')
        },
      }),
      'value.boom',
    ],
    ['a proxy', () => new Proxy({}, {}), 'value'],
  ])('T14: a value with %s is INVALID_TOOL_OUTPUT, not silent corruption', async (_label, body, path) => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', body))
    const result = await ctx.tools.execute(call('t'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toContain(
      `returned a value that is not lossless JSON: ${path}`,
    )
  })

  it.each([
    ['a text block with non-string text', [{ type: 'text', text: 5 }], 'content[0].text must be a string'],
    [
      'an unknown block type',
      [{ type: 'video', url: 'x' }],
      'content[0].type must be "text", "image" or "audio"',
    ],
    [
      'an image without data or url',
      [{ type: 'image', mediaType: 'image/png' }],
      'content[0] must carry "data" or "url"',
    ],
  ])('T14: content with %s is INVALID_TOOL_OUTPUT naming the block', async (_label, blocks, problem) => {
    const { ctx } = setup()
    ctx.tools.register({ ...tool('t', () => 'v'), toContent: () => blocks as never })
    const result = await ctx.tools.execute(call('t'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toBe(`Tool "t" produced invalid content: ${problem}`)
  })

  it('T16: a failure carrying a code outside ToolErrorCodes (from a wrapper) is INVALID_TOOL_OUTPUT', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    ctx.on('tools/execute', () => ({
      isError: true,
      content: [{ type: 'text', text: 'custom' }],
      error: { message: 'custom', info: { name: 'Mine', code: 'MY_CODE' as never } },
    }))
    const result = await ctx.tools.execute(call('t'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toBe(
      'Tool "t" produced a failure with invalid error info: error.info.code must be one of ToolErrorCodes, got the string "MY_CODE"',
    )
  })

  it('T15: success and failure have exactly the documented shapes', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('ok', () => 'fine'))
    ctx.tools.register(
      tool('bad', () => {
        throw new Error('nope')
      }),
    )
    expect(await ctx.tools.execute(call('ok'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'fine' }],
      value: 'fine',
    })
    expect(await ctx.tools.execute(call('bad'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "bad" failed: nope' }],
      error: { message: 'Tool "bad" failed: nope', info: { name: 'ToolFailed', code: 'TOOL_FAILED' } },
    })
  })

  it('T15: without a timeout or a caller signal, an awaited body’s value and rejection have the same shapes', async () => {
    // nothing can end such a body early: the pipeline awaits its promise directly
    const { ctx } = setup({ defaultTimeoutMs: false })
    ctx.tools.register(tool('ok', async () => ({ sum: 3 })))
    ctx.tools.register(
      tool('bad', async () => {
        await Promise.resolve()
        throw new Error('nope')
      }),
    )
    ctx.tools.register(tool('thrown', () => Promise.reject(new Error('late'))))
    expect(await ctx.tools.execute(call('ok'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: '{"sum":3}' }],
      value: { sum: 3 },
    })
    expect(await ctx.tools.execute(call('bad'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "bad" failed: nope' }],
      error: { message: 'Tool "bad" failed: nope', info: { name: 'ToolFailed', code: 'TOOL_FAILED' } },
    })
    expect(codeOf(await ctx.tools.execute(call('thrown')))).toBe('TOOL_FAILED')
  })

  it('T16: the error codes are the documented stable strings', () => {
    expect(ToolErrorCodes).toMatchObject({
      UNKNOWN_TOOL: 'UNKNOWN_TOOL',
      INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
      DENIED: 'DENIED',
      ABORTED: 'ABORTED',
      ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
      INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
      TIMEOUT: 'TIMEOUT',
    })
    expect(TOOL_ABORTED_BEFORE_DISPATCH).toBe('ABORTED_BEFORE_DISPATCH')
  })

  it('T16: ABORTED when cancelled after the body started, ABORTED_BEFORE_DISPATCH when before', async () => {
    // the body ignores its signal: without a grace the call is answered at once
    const { ctx } = setup({ abortGraceMs: 0 })
    let started = false
    ctx.tools.register(
      tool('slow', () => {
        started = true
        return new Promise<never>(() => {})
      }),
    )
    const before = new AbortController()
    before.abort()
    expect(codeOf(await ctx.tools.execute(call('slow', {}, { signal: before.signal })))).toBe(
      'ABORTED_BEFORE_DISPATCH',
    )
    expect(started).toBe(false)
    const during = new AbortController()
    const pending = ctx.tools.execute(call('slow', {}, { signal: during.signal }))
    await new Promise((r) => setImmediate(r))
    expect(started).toBe(true)
    during.abort()
    expect(codeOf(await pending)).toBe('ABORTED')
  })

  it('T16: a body sees its signal abort when the caller cancels', async () => {
    const { ctx } = setup({ abortGraceMs: 0 })
    let bodySignal: AbortSignal | undefined
    ctx.tools.register({
      ...tool('t'),
      execute: (_args: unknown, exec: { signal: AbortSignal }) => {
        bodySignal = exec.signal
        return new Promise<never>(() => {})
      },
    })
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('t', {}, { signal: controller.signal }))
    await new Promise((r) => setImmediate(r))
    controller.abort()
    await pending
    expect(bodySignal?.aborted).toBe(true)
  })
})
