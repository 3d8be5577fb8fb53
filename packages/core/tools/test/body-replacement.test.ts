import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { defineTool, type ToolBody } from '@deepseek-ai/dsh-tools'
import { call, codeOf, deferred, setup, tick } from './fixtures.ts'

/** A tool whose own body must never run when a wrapper replaces it. */
function guarded(ran: string[]) {
  return defineTool({
    name: 'work',
    description: 'Work',
    parameters: z.object({ path: z.string().trim() }),
    output: z.object({ n: z.number() }),
    toContent: (value: { n: number }) => `n=${value.n}`,
    execute: () => {
      ran.push('own')
      return { n: 0 }
    },
  })
}

describe('a tools/execute wrapper may replace the body: next({ ...call, body })', () => {
  it('T36: the replacement gets the validated args and the exec; the tool’s own body does not run; the value is rendered by toContent', async () => {
    const { ctx } = setup()
    const ran: string[] = []
    ctx.tools.register(guarded(ran))
    const seen: unknown[] = []
    const body: ToolBody = (args, exec) => {
      seen.push(args, exec.callId, exec.toolName)
      exec.deferContext('from the replacement')
      return { n: 7 }
    }
    ctx.on('tools/execute', (c, next) => next({ ...c, body }))
    const result = await ctx.tools.execute(call('work', { path: '  a  ' }, { callId: 'r1' }))
    expect(ran).toEqual([])
    expect(seen).toEqual([{ path: 'a' }, 'r1', 'work'])
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'n=7' }],
      value: { n: 7 },
      additionalContexts: ['from the replacement'],
    })
  })

  it('T14: the replacement’s value is checked like the tool’s own: output schema, lossless JSON', async () => {
    const { ctx } = setup()
    ctx.tools.register(guarded([]))
    let value: unknown = { n: 'x' }
    ctx.on('tools/execute', (c, next) => next({ ...c, body: () => value }))
    const broken = await ctx.tools.execute(call('work', { path: 'a' }))
    expect(codeOf(broken)).toBe('INVALID_TOOL_OUTPUT')
    value = { n: 1, extra: 2n }
    const lossy = await ctx.tools.execute(call('work', { path: 'a' }))
    expect(codeOf(lossy)).toBe('INVALID_TOOL_OUTPUT')
    expect(lossy.isError && lossy.error.message).toMatch(/BigInt/)
  })

  it('T13: a replacement that throws is TOOL_FAILED with its message, as the tool’s own throw would be', async () => {
    const { ctx } = setup()
    ctx.tools.register(guarded([]))
    ctx.on('tools/execute', (c, next) =>
      next({
        ...c,
        body: () => {
          throw new Error('remote said no')
        },
      }),
    )
    const result = await ctx.tools.execute(call('work', { path: 'a' }))
    expect(codeOf(result)).toBe('TOOL_FAILED')
    expect(result.isError && result.error.message).toContain('remote said no')
  })

  it('T17/T38: an inner timeout wrapper still bounds the replacement and aborts its signal; the late outcome is reported', async () => {
    const { ctx } = setup()
    ctx.tools.register({ ...guarded([]), timeoutMs: 5 })
    const release = deferred()
    let aborted = false
    const late: unknown[] = []
    ctx.on('tools/late-outcome', (outcome) => void late.push(outcome))
    // outside the shipped timeout wrapper (priority -1000), so the timeout applies to the replacement
    ctx.on('tools/execute', (c, next) =>
      next({
        ...c,
        body: async (_args, exec) => {
          exec.signal.addEventListener('abort', () => (aborted = true))
          await release.promise
          return { n: 1 }
        },
      }),
    )
    const result = await ctx.tools.execute(call('work', { path: 'a' }))
    expect(codeOf(result)).toBe('TIMEOUT')
    expect(aborted).toBe(true)
    release.resolve()
    for (let i = 0; i < 5 && late.length === 0; i++) await tick()
    expect(late).toEqual([{ kind: 'value', value: { n: 1 } }])
  })

  it('T16/T38: a replacement that started is ABORTED on the caller’s abort (not ABORTED_BEFORE_DISPATCH)', async () => {
    const { ctx } = setup({ abortGraceMs: 0 })
    ctx.tools.register(guarded([]))
    const started = deferred()
    ctx.on('tools/execute', (c, next) =>
      next({
        ...c,
        body: (_args, exec) =>
          new Promise((_resolve, reject) => {
            started.resolve()
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')))
          }),
      }),
    )
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('work', { path: 'a' }, { signal: controller.signal }))
    await started.promise
    controller.abort()
    expect(codeOf(await pending)).toBe('ABORTED')
  })

  it('a body that is not a function is ignored: the tool’s own body runs', async () => {
    const { ctx } = setup()
    const ran: string[] = []
    ctx.tools.register(guarded(ran))
    ctx.on('tools/execute', (c, next) => next({ ...c, body: 'nope' as unknown as ToolBody }))
    const result = await ctx.tools.execute(call('work', { path: 'a' }))
    expect(ran).toEqual(['own'])
    expect(codeOf(result)).toBe('OK')
  })
})
