import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

const messageOf = (r: { isError: boolean; error?: { message: string } }): string =>
  r.isError ? (r.error?.message ?? '') : ''

const hasLoneSurrogate = (text: string): boolean =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)

describe('integers beyond 2^53 (issue 8 item 10)', () => {
  function world() {
    const env = setup()
    const received: unknown[] = []
    env.ctx.tools.register(tool('take', (args) => void received.push(args)))
    return { ...env, received }
  }

  it.each(['9007199254740993', '-9007199254740993', '12345678901234567890'])(
    'an integer a double cannot hold exactly (%s) is INVALID_ARGUMENTS, and the body never runs',
    async (n) => {
      const { ctx, received } = world()
      const result = await ctx.tools.execute(call('take', `{"id":${n}}`))
      expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
      expect(messageOf(result)).toBe(
        `Invalid arguments for tool "take": arguments contain the integer ${n}, which a JSON number cannot carry exactly (integers beyond ±2^53 lose precision); send it as a string`,
      )
      expect(received).toEqual([])
    },
  )

  it('exact values pass: 2^53 - 1, 2^60 (a power of two), decimals, exponents and digits inside strings', async () => {
    const { ctx, received } = world()
    const raw =
      '{"a":9007199254740991,"b":1152921504606846976,"c":3.14159265358979323846,"d":1e21,"e":"12345678901234567890","f":[-9007199254740991]}'
    expect(codeOf(await ctx.tools.execute(call('take', raw)))).toBe('OK')
    expect(received[0]).toMatchObject({ a: 9007199254740991, b: 2 ** 60, e: '12345678901234567890' })
  })

  it('a lossy integer nested deep in an array is caught too', async () => {
    const { ctx } = world()
    expect(codeOf(await ctx.tools.execute(call('take', '{"rows":[[1,2],[3,99999999999999999]]}')))).toBe(
      'INVALID_ARGUMENTS',
    )
  })
})

describe('echoed values are capped, at code-point boundaries (issue 8 items 11, 12)', () => {
  it('an unknown 100,000-character tool name is not echoed in full', async () => {
    const { ctx } = setup()
    const name = 'x'.repeat(100_000)
    const result = await ctx.tools.execute({ callId: 'c', name, arguments: '{}' })
    expect(codeOf(result)).toBe('UNKNOWN_TOOL')
    expect(messageOf(result).length).toBeLessThan(300)
    expect(messageOf(result)).toContain('… (100000 chars)')
  })

  it('an aborted call with a made-up 100,000-character name gets a short message', async () => {
    const { ctx } = setup()
    const result = await ctx.tools.execute({
      callId: 'c',
      name: '🙂'.repeat(50_000),
      arguments: '{}',
      signal: AbortSignal.abort(),
    })
    expect(codeOf(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(messageOf(result).length).toBeLessThan(200)
    expect(hasLoneSurrogate(messageOf(result))).toBe(false)
  })

  it('the preview of invalid JSON is cut at a code-point boundary', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('take'))
    // the cut would fall right after the high surrogate of an emoji at some offset; try every offset
    for (let pad = 0; pad < 4; pad++) {
      const raw = `{"a":"${'b'.repeat(pad)}${'😀'.repeat(200)}`
      const message = messageOf(await ctx.tools.execute(call('take', raw)))
      expect(message).toContain('received: ')
      expect(hasLoneSurrogate(message)).toBe(false)
    }
  })

  it('the default call label is cut at a code-point boundary', () => {
    const { ctx } = setup()
    ctx.tools.register(tool('take'))
    for (let pad = 0; pad < 4; pad++) {
      const label = ctx.tools.describeCall('take', { text: `${'a'.repeat(pad)}${'😀'.repeat(100)}` })
      expect(label.length).toBeLessThanOrEqual(130)
      expect(hasLoneSurrogate(label)).toBe(false)
    }
  })

  it('a 100,000-character key named in a validation issue is capped', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'strict',
        description: 'd',
        parameters: z.strictObject({ a: z.string() }),
        execute: () => 1,
      }),
    )
    const key = 'k'.repeat(100_000)
    const result = await ctx.tools.execute(call('strict', { a: 'x', [key]: 1 }))
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    expect(messageOf(result).length).toBeLessThan(2_200)
  })
})

describe('result size limit (issue 8 item 9)', () => {
  it('a 1,000,000-element array is refused before it is copied, with a clear message', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('big', () => Array.from({ length: 1_000_000 }, (_, i) => i)))
    const result = await ctx.tools.execute(call('big'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(messageOf(result)).toMatch(
      /^Tool "big" returned at least \d+ bytes of result; the limit is 4194304 bytes \(maxResultBytes\)\. Return less/,
    )
  })

  it('the limit is configurable; a value just under it passes and one just over fails, measured exactly', async () => {
    // (the limit holds for the message saying so too: 200 bytes leave room for all of it)
    const { ctx } = setup({ maxResultBytes: 200 })
    ctx.tools.register(tool('sized', (args) => 'é'.repeat(Number(args.n))))
    // 'é' is 2 bytes in UTF-8: 100 of them are exactly 200 bytes of text
    expect(codeOf(await ctx.tools.execute(call('sized', { n: 100 })))).toBe('OK')
    const over = await ctx.tools.execute(call('sized', { n: 101 }))
    expect(messageOf(over)).toBe(
      'Tool "sized" returned 202 bytes of result; the limit is 200 bytes (maxResultBytes). Return less (a page, a summary, a path to the full data) or raise the limit.',
    )
  })

  it('a getter on the value is not run by the size check (only by the copy, once)', async () => {
    const { ctx } = setup()
    let reads = 0
    ctx.tools.register(
      tool('getter', () => ({
        get rows() {
          reads++
          return [1, 2, 3]
        },
      })),
    )
    expect(await ctx.tools.execute(call('getter'))).toMatchObject({ value: { rows: [1, 2, 3] } })
    expect(reads).toBe(1)
  })

  it('content a policy supplies is held to the same limit', async () => {
    const { ctx } = setup({ maxResultBytes: 1_000 })
    ctx.tools.register(tool('t'))
    ctx.on('tools/post-execute', () => ({ type: 'accept', content: 'x'.repeat(2_000) }))
    expect(messageOf(await ctx.tools.execute(call('t')))).toMatch(
      /returned 2000 bytes of result; the limit is 1000/,
    )
  })
})
