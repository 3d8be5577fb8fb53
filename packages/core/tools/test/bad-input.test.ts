import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ToolsError } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

function world() {
  const env = setup()
  let received: unknown
  env.ctx.tools.register(
    tool('take', (args) => {
      received = args
      return 'ok'
    }),
  )
  return { ...env, received: () => received }
}

const messageOf = (r: { isError: boolean; error?: { message: string } }): string =>
  r.isError ? (r.error?.message ?? '') : ''

describe('bad input from the model (docs/spec.md §10)', () => {
  it('invalid JSON is kept as text and fails validation with a clear message', async () => {
    const { ctx } = world()
    const result = await ctx.tools.execute(call('take', '{"path": "a",'))
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    expect(messageOf(result)).toMatch(
      /^Invalid arguments for tool "take": arguments are not valid JSON \(.+\); received: \{"path": "a",$/,
    )
  })

  it('a non-object root is refused', async () => {
    const { ctx } = world()
    expect(messageOf(await ctx.tools.execute(call('take', '[1,2]')))).toContain(
      'arguments must be a JSON object, got an array of length 2',
    )
    expect(messageOf(await ctx.tools.execute(call('take', '"str"')))).toContain(
      'arguments must be a JSON object, got the string "str"',
    )
  })

  it('a 10 MB argument string is refused before parsing, naming its size and the limit', async () => {
    const { ctx } = world()
    const huge = JSON.stringify({ blob: 'x'.repeat(10 * 1024 * 1024) })
    const result = await ctx.tools.execute(call('take', huge))
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    expect(messageOf(result)).toBe(
      `Invalid arguments for tool "take": arguments are ${huge.length} bytes; the limit is 1048576 bytes`,
    )
  })

  it('10,000-deep nesting is refused without overflowing the stack', async () => {
    const { ctx } = world()
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
    const result = await ctx.tools.execute(call('take', deep))
    expect(messageOf(result)).toBe('Invalid arguments for tool "take": arguments nest deeper than 64 levels')
    const deepObject: Record<string, unknown> = {}
    let cursor = deepObject
    for (let i = 0; i < 10_000; i++) cursor = cursor.a = {} as Record<string, unknown>
    const fromObject = await ctx.tools.execute({ callId: 'd', name: 'take', arguments: deepObject as never })
    expect(codeOf(fromObject)).toBe('INVALID_ARGUMENTS')
  })

  it('a "__proto__" key is refused, at any depth, from a string or an object', async () => {
    const { ctx, received } = world()
    const result = await ctx.tools.execute(call('take', '{"a":{"__proto__":{"polluted":true}}}'))
    expect(messageOf(result)).toBe(
      'Invalid arguments for tool "take": arguments must not contain a "__proto__" key',
    )
    const obj = JSON.parse('{"__proto__":{"polluted":true}}') as never
    expect(codeOf(await ctx.tools.execute({ callId: 'o', name: 'take', arguments: obj }))).toBe(
      'INVALID_ARGUMENTS',
    )
    expect(received()).toBeUndefined()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('a number that overflows to Infinity is refused (it would not survive JSON)', async () => {
    const { ctx } = world()
    expect(messageOf(await ctx.tools.execute(call('take', '{"n":1e400}')))).toContain(
      'a number too large to represent',
    )
    expect(messageOf(await ctx.tools.execute(call('take', `{"n":${'9'.repeat(400)}}`)))).toContain(
      'too large',
    )
    expect(codeOf(await ctx.tools.execute(call('take', '{"n":1e3}')))).toBe('OK')
  })

  it('an escaped "__proto__" key is caught too', async () => {
    const { ctx } = world()
    expect(messageOf(await ctx.tools.execute(call('take', '{"\\u005f_proto__":{}}')))).toContain(
      '"__proto__" key',
    )
  })

  it('a "constructor" key is plain data', async () => {
    const { ctx, received } = world()
    expect(codeOf(await ctx.tools.execute(call('take', { constructor: { prototype: 1 } })))).toBe('OK')
    expect(received()).toEqual({ constructor: { prototype: 1 } })
    expect(Object.getPrototypeOf(received())).toBe(Object.prototype)
  })

  it('an empty argument string means no arguments', async () => {
    const { ctx, received } = world()
    expect(codeOf(await ctx.tools.execute(call('take', '  ')))).toBe('OK')
    expect(received()).toEqual({})
  })

  it('unknown tools get UNKNOWN_TOOL listing what exists', async () => {
    const { ctx } = world()
    expect(messageOf(await ctx.tools.execute(call('tkae')))).toBe(
      'Unknown tool "tkae". Available tools: take.',
    )
  })

  it('the depth limit is inclusive: exactly maxArgumentDepth levels pass, one more is refused (string and object)', async () => {
    const { ctx } = setup({ maxArgumentDepth: 5 })
    ctx.tools.register(tool('take'))
    const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1)
    const nestedObject = (levels: number): Record<string, unknown> => {
      const root: Record<string, unknown> = {}
      let cursor = root
      for (let i = 1; i < levels; i++) cursor = cursor.a = {} as Record<string, unknown>
      return root
    }
    expect(codeOf(await ctx.tools.execute(call('take', nested(5))))).toBe('OK')
    expect(messageOf(await ctx.tools.execute(call('take', nested(6))))).toBe(
      'Invalid arguments for tool "take": arguments nest deeper than 5 levels',
    )
    expect(
      codeOf(await ctx.tools.execute({ callId: 'o5', name: 'take', arguments: nestedObject(5) as never })),
    ).toBe('OK')
    expect(
      codeOf(await ctx.tools.execute({ callId: 'o6', name: 'take', arguments: nestedObject(6) as never })),
    ).toBe('INVALID_ARGUMENTS')
  })

  it('limits are configurable and validated', async () => {
    const { ctx } = setup({ maxArgumentBytes: 14, maxArgumentDepth: 2 })
    ctx.tools.register(tool('take'))
    expect(messageOf(await ctx.tools.execute(call('take', { a: 'more than ten' })))).toContain(
      'the limit is 14 bytes',
    )
    expect(messageOf(await ctx.tools.execute(call('take', '{"a":{"b":{}}}')))).toContain(
      'arguments nest deeper than 2 levels',
    )
    expect(() => setup({ maxArgumentBytes: 0 })).toThrow(
      /options.maxArgumentBytes must be a positive integer ≤ 2147483647, got the number 0/,
    )
  })
})

describe('API misuse throws a ToolsError naming the argument', () => {
  it.each([
    [null, /input must be an object, got null/],
    [{ callId: '', name: 'take', arguments: '{}' }, /input.callId must be a non-empty string/],
    [{ callId: 'c', name: 7, arguments: '{}' }, /input.name must be a string, got the number 7/],
    [
      { callId: 'c', name: 'take', arguments: 5 },
      /input.arguments must be a JSON string or object, got the number 5/,
    ],
    [{ callId: 'c', name: 'take', arguments: '{}', signal: 'stop' }, /input.signal must be an AbortSignal/],
  ])('execute(%o)', async (input, message) => {
    const { ctx } = world()
    const error: unknown = await ctx.tools.execute(input as never).catch((e: unknown) => e)
    expect(ToolsError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(message)
  })

  it('T20: an input whose getter throws: execute and executeBatch reject alike, with a ToolsError naming the field; nothing runs', async () => {
    const fields = [
      'callId',
      'name',
      'arguments',
      'signal',
      'turn',
      'step',
      'parent',
      'nestedCallHooks',
      'approval',
    ]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.anything(), async (field, thrown) => {
        const { ctx, received } = world()
        const seen: unknown[] = []
        ctx.on('tools/result', (result) => void seen.push(result))
        const input = { callId: 'c', name: 'take', arguments: '{"a":1}' }
        Object.defineProperty(input, field, {
          enumerable: true,
          get: () => {
            throw thrown
          },
        })
        const one: unknown = await ctx.tools.execute(input as never).catch((e: unknown) => e)
        const batch: unknown = await ctx.tools.executeBatch([input as never]).catch((e: unknown) => e)
        for (const [error, where] of [
          [one, 'tools.execute(input): reading input'],
          [batch, 'tools.executeBatch(inputs, options): reading inputs[0]'],
        ] as const) {
          expect(ToolsError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT')
          expect((error as Error).message.startsWith(`${where}.${field} threw: `)).toBe(true)
        }
        expect([received(), seen]).toEqual([undefined, []])
      }),
      { numRuns: 60 },
    )
  })

  it('installTools refuses something that is not a ctx', async () => {
    const { installTools } = await import('@deepseek-ai/dsh-tools')
    expect(() => installTools({} as never)).toThrow(
      /ctx must be a context from createContext\(\), got an object/,
    )
  })
})
