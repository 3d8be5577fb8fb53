import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolCallInfo, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

/** The README's permission listener: nothing under /etc. */
function etcPolicy(ctx: ReturnType<typeof setup>['ctx']) {
  const seen: { listener: unknown[]; guard: unknown[]; approval: unknown[] } = {
    listener: [],
    guard: [],
    approval: [],
  }
  ctx.on('tools/pre-execute', (c, next) => {
    seen.listener.push(c.args.path)
    return String(c.args.path).startsWith('/etc') ? { type: 'deny', reason: 'no /etc' } : next()
  })
  ctx.tools.guard((c) => {
    seen.guard.push(c.args.path)
    return String(c.args.path).startsWith('/etc') ? { type: 'deny', reason: 'guard: no /etc' } : undefined
  })
  return seen
}

function readTool(path: z.ZodType<string, string>, received: unknown[]) {
  return defineTool({
    name: 'read_file',
    description: 'Read a file',
    parameters: z.object({ path }),
    strict: false,
    execute: ({ path: p }) => {
      received.push(p)
      return `read ${p}`
    },
  })
}

describe('T36: policy decides on what the body runs with', () => {
  it.each([
    ['.trim()', z.string().trim(), ' /etc/passwd'],
    ['.toLowerCase()', z.string().toLowerCase(), '/ETC/passwd'],
    ['a .transform() expanding ~', z.string().transform((p) => p.replace(/^~(?=\/|$)/, '/etc')), '~/passwd'],
  ])('T36: %s cannot smuggle a path past a README-style /etc deny', async (_label, schema, raw) => {
    const { ctx } = setup()
    const received: unknown[] = []
    ctx.tools.register(readTool(schema, received))
    const seen = etcPolicy(ctx)
    const result = await ctx.tools.execute(call('read_file', { path: raw }))
    expect(result).toMatchObject({ isError: true, error: { info: { code: 'DENIED', name: 'PolicyDenied' } } })
    expect(seen.listener).toEqual(['/etc/passwd'])
    expect(received).toEqual([])
  })

  it('T36: guards and the approval service see the transformed arguments too', async () => {
    const { ctx } = setup()
    const received: unknown[] = []
    ctx.tools.register(readTool(z.string().trim().toLowerCase(), received))
    const approvals: unknown[] = []
    ctx.provide('approval', {
      request: async (request) => {
        approvals.push(request.args.path)
        return { type: 'allowed-once' }
      },
    })
    ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    const guarded: unknown[] = []
    ctx.tools.guard((c) => void guarded.push(c.args.path))
    expect(codeOf(await ctx.tools.execute(call('read_file', { path: '  SRC/A.TS ' })))).toBe('OK')
    expect(approvals).toEqual(['src/a.ts'])
    expect(guarded).toEqual(['src/a.ts'])
    expect(received).toEqual(['src/a.ts'])
  })

  it('T36: policy and the body get the same deep-frozen object; the input keeps the model text', async () => {
    const { ctx } = setup()
    let bodyArgs: unknown
    ctx.tools.register(
      defineTool({
        name: 'edit',
        description: 'Edit',
        parameters: z.object({ path: z.string().trim(), lines: z.array(z.object({ n: z.number() })) }),
        execute: (args) => {
          bodyArgs = args
          return 'ok'
        },
      }),
    )
    const calls: ToolCallInfo[] = []
    const mutations: string[] = []
    ctx.on('tools/pre-execute', (c, next) => {
      calls.push(c)
      try {
        ;(c.args.lines as { n: number }[])[0]!.n = 99
      } catch (error) {
        mutations.push((error as Error).constructor.name)
      }
      return next()
    })
    const input = call('edit', { path: ' a.ts ', lines: [{ n: 1 }] })
    expect(codeOf(await ctx.tools.execute(input))).toBe('OK')
    expect(mutations).toEqual(['TypeError'])
    expect(bodyArgs).toBe(calls[0]!.args)
    expect(bodyArgs).toEqual({ path: 'a.ts', lines: [{ n: 1 }] })
    expect(Object.isFrozen((bodyArgs as { lines: object[] }).lines[0])).toBe(true)
    expect(input.arguments).toBe('{"path":" a.ts ","lines":[{"n":1}]}')
  })

  it('T36: a transform into a non-JSON value (a Date) reaches policy as that same object', async () => {
    const { ctx } = setup()
    let bodyWhen: unknown
    ctx.tools.register(
      defineTool({
        name: 'remind',
        description: 'Set a reminder',
        parameters: z.object({ when: z.string().transform((s) => new Date(s)) }),
        strict: false,
        execute: ({ when }) => {
          bodyWhen = when
          return when.toISOString()
        },
      }),
    )
    let policyWhen: unknown
    ctx.on('tools/pre-execute', (c, next) => {
      policyWhen = c.args.when
      return next()
    })
    const result = await ctx.tools.execute(call('remind', { when: '2030-01-02T03:04:05.000Z' }))
    expect(result).toMatchObject({ isError: false, value: '2030-01-02T03:04:05.000Z' })
    expect(policyWhen).toBeInstanceOf(Date)
    expect(policyWhen).toBe(bodyWhen)
  })

  it('T36: a validator that turns the arguments into a non-object fails closed', async () => {
    const { ctx } = setup()
    let ran = false
    ctx.tools.register({
      ...tool('odd'),
      validate: () => ({ ok: true, value: 'just a string' }),
      execute: () => (ran = true),
    })
    const result = await ctx.tools.execute(call('odd'))
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(result.isError && result.error.message).toBe(
      'Argument validation for tool "odd" failed: the schema turned the arguments into the string "just a string"; validated arguments must stay an object',
    )
    expect(ran).toBe(false)
  })

  it('T36: an input is read once: a name getter that changes between reads cannot split policy from the body', async () => {
    const { ctx } = setup()
    const ran: string[] = []
    ctx.tools.register(tool('safe', () => void ran.push('safe')))
    ctx.tools.register(tool('rm', () => void ran.push('rm')))
    const policy: string[] = []
    ctx.on('tools/pre-execute', (c) =>
      c.toolName === 'rm' ? { type: 'deny', reason: 'no rm' } : (policy.push(c.toolName), { type: 'allow' }),
    )
    const results: string[] = []
    ctx.on('tools/result', (_r, c) => void results.push(c.toolName))
    let reads = 0
    const input = {
      callId: 'c1',
      arguments: '{}',
      get name() {
        reads++
        return reads === 1 ? 'safe' : 'rm'
      },
    } as ToolExecutionInput
    expect(codeOf(await ctx.tools.execute(input))).toBe('OK')
    expect(reads).toBe(1)
    expect(policy).toEqual(['safe'])
    expect(ran).toEqual(['safe'])
    expect(results).toEqual(['safe'])
  })
})
