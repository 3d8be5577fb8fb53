import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup } from './fixtures.ts'

/**
 * The tool: its value carries a secret a policy must be able to redact. `render` is the
 * tool's own `toContent` (default: the value's JSON text); `body` replaces the body.
 */
function login(
  options: { name?: string; render?: (value: { token: string }) => string; body?: () => unknown } = {},
) {
  return defineTool({
    name: options.name ?? 'login',
    description: 'Log in and return the session token',
    parameters: z.object({}),
    output: z.object({ token: z.string() }),
    ...(options.render === undefined ? {} : { toContent: options.render }),
    execute: (options.body ?? (() => ({ token: 'SECRET-123' }))) as () => { token: string },
  })
}
const loginRendered = () => login({ name: 'login_rendered', render: (value) => `token: ${value.token}` })

const REDACTED = { token: '[redacted]' }

/** Everything of a result as text, so a secret anywhere in it (content, value, contexts) is found. */
const everywhere = (result: ToolExecutionResult): string => JSON.stringify(result)

describe('T14: a value replaced after the body is checked against the output schema and rendered again', () => {
  it('T14: post-execute accept({ value }) redacts the content too, not only the value', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    const seen: ToolExecutionResult[] = []
    ctx.on('tools/post-execute', () => ({ type: 'accept', value: REDACTED }))
    ctx.on('tools/result', (result) => void seen.push(result))
    const result = await ctx.tools.execute(call('login'))
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: '{"token":"[redacted]"}' }],
      value: REDACTED,
    })
    expect(everywhere(result)).not.toContain('SECRET-123')
    expect(seen).toEqual([result])
  })

  it("T14: the replaced value is rendered by the tool's own toContent", async () => {
    const { ctx } = setup()
    ctx.tools.register(loginRendered())
    ctx.on('tools/post-execute', () => ({ type: 'accept', value: REDACTED }))
    const result = await ctx.tools.execute(call('login_rendered'))
    expect(result.content).toEqual([{ type: 'text', text: 'token: [redacted]' }])
    expect(everywhere(result)).not.toContain('SECRET-123')
  })

  it('T14: content replaced by the same decision is kept as given (it is the decision’s own)', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    ctx.on('tools/post-execute', () => ({ type: 'accept', value: REDACTED, content: 'logged in' }))
    const result = await ctx.tools.execute(call('login'))
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'logged in' }],
      value: REDACTED,
    })
  })

  it('T14: accept({ value: 1 }) against output z.object({ token }) is INVALID_TOOL_OUTPUT, naming who replaced it', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    ctx.on('tools/post-execute', (_c, next) => {
      void next
      return { type: 'accept', value: 1 }
    })
    const result = await ctx.tools.execute(call('login'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toMatch(
      /^A tools\/post-execute listener replaced the value of tool "login" with one that breaks its output schema: /,
    )
    expect(everywhere(result)).not.toContain('SECRET-123')
  })

  it('T14: a replaced value that is not lossless JSON is INVALID_TOOL_OUTPUT', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({ name: 'loose', description: 'Loose', parameters: z.object({}), execute: () => 'x' }),
    )
    ctx.on('tools/post-execute', () => ({ type: 'accept', value: { n: Number.NaN } }) as never)
    const result = await ctx.tools.execute(call('loose'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toMatch(/not lossless JSON: value\.n/)
  })

  it('T14: a tools/execute wrapper that returns another value: checked and rendered again', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    ctx.on('tools/execute', async (_c, next) => {
      const r = await next()
      return { ...r, value: REDACTED }
    })
    const redacted = await ctx.tools.execute(call('login'))
    expect(redacted).toEqual({
      isError: false,
      content: [{ type: 'text', text: '{"token":"[redacted]"}' }],
      value: REDACTED,
    })
    expect(everywhere(redacted)).not.toContain('SECRET-123')
  })

  it('T14: a wrapper’s value that breaks the output schema is INVALID_TOOL_OUTPUT; content it replaced itself is kept', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    let replace: (r: ToolExecutionResult) => ToolExecutionResult = (r) => ({ ...r, value: 1 }) as never
    ctx.on('tools/execute', async (_c, next) => replace(await next()))
    const broken = await ctx.tools.execute(call('login'))
    expect(codeOf(broken)).toBe('INVALID_TOOL_OUTPUT')
    expect(broken.isError && broken.error.message).toMatch(
      /^A tools\/execute wrapper replaced the value of tool "login"/,
    )
    replace = (r) => ({ ...r, value: REDACTED, content: [{ type: 'text', text: 'mine' }] })
    const own = await ctx.tools.execute(call('login'))
    expect(own).toEqual({ isError: false, content: [{ type: 'text', text: 'mine' }], value: REDACTED })
    // a wrapper answering without the body (a cache) is held to the output schema too
    ctx.on(
      'tools/execute',
      () => ({ isError: false, content: [{ type: 'text', text: 'cached' }], value: 'no' }),
      {
        priority: 10,
      },
    )
    expect(codeOf(await ctx.tools.execute(call('login')))).toBe('INVALID_TOOL_OUTPUT')
  })

  it('T14: a wrapper that returns what next() gave it, or a spread of it, changes nothing', async () => {
    const { ctx } = setup()
    ctx.tools.register(loginRendered())
    ctx.on('tools/execute', async (_c, next) => ({ ...(await next()), meta: { wrapped: true } }))
    ctx.on('tools/execute', (_c, next) => next())
    const result = await ctx.tools.execute(call('login_rendered'))
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'token: SECRET-123' }],
      value: { token: 'SECRET-123' },
      meta: { wrapped: true },
    })
  })
})

describe('T14: a policy answering in place of the body (respond) is held to the output schema too', () => {
  it('T14: respond({ content, value }) with a value that breaks the output schema is INVALID_TOOL_OUTPUT; a fitting one passes as given', async () => {
    const { ctx } = setup()
    ctx.tools.register(login())
    let value: unknown = 1
    ctx.on('tools/pre-execute', () => ({ type: 'respond', content: 'from the cache', value }) as never)
    const broken = await ctx.tools.execute(call('login'))
    expect(codeOf(broken)).toBe('INVALID_TOOL_OUTPUT')
    expect(broken.isError && broken.error.message).toMatch(
      /^A tools\/pre-execute listener replaced the value of tool "login" with one that breaks its output schema/,
    )
    value = REDACTED
    expect(await ctx.tools.execute(call('login'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'from the cache' }],
      value: REDACTED,
    })
  })
})

describe('T14: the result a wrapper gets from next() is frozen', () => {
  it('T14: setting r.value = 42 (or editing its content) in place is impossible and ships nothing', async () => {
    const { ctx } = setup()
    ctx.tools.register(loginRendered())
    const attempts: string[] = []
    ctx.on('tools/execute', async (_c, next) => {
      const r = await next()
      for (const [what, write] of [
        ['value', () => ((r as { value: unknown }).value = 42)],
        ['value.token', () => ((r as unknown as { value: { token: string } }).value.token = 'x')],
        ['content[0].text', () => ((r.content[0] as { text: string }).text = 'x')],
        ['content.push', () => (r.content as unknown[]).push({ type: 'text', text: 'x' })],
      ] as const) {
        try {
          write()
          attempts.push(`${what}: written`)
        } catch (error) {
          attempts.push(`${what}: ${(error as Error).name}`)
        }
      }
      return r
    })
    const result = await ctx.tools.execute(call('login_rendered'))
    expect(attempts).toEqual([
      'value: TypeError',
      'value.token: TypeError',
      'content[0].text: TypeError',
      'content.push: TypeError',
    ])
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'token: SECRET-123' }],
      value: { token: 'SECRET-123' },
    })
  })

  it('T14: a failure from next() is frozen as well', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      login({
        name: 'fails',
        body: () => {
          throw new Error('nope')
        },
      }),
    )
    let frozen: boolean[] = []
    ctx.on('tools/execute', async (_c, next) => {
      const r = await next()
      frozen = [Object.isFrozen(r), Object.isFrozen(r.content), r.isError && Object.isFrozen(r.error)]
      return r
    })
    expect(codeOf(await ctx.tools.execute(call('fails')))).toBe('TOOL_FAILED')
    expect(frozen).toEqual([true, true, true])
  })
})
