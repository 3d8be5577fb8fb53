import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, setup, tool } from './fixtures.ts'

function world() {
  const env = setup()
  env.ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string().trim() }),
      presentCall: ({ path }) => `Reading ${path}`,
      presentResult: ({ path }, result) => (result.isError ? `Could not read ${path}` : `Read ${path}`),
      execute: ({ path }) => `contents of ${path}`,
    }),
  )
  return env
}

describe('UI labels (docs/spec.md §5 steps 1 and 12)', () => {
  it('describeCall and describeResult use presentCall / presentResult with the validated arguments', async () => {
    const { ctx } = world()
    const result = await ctx.tools.execute(call('read_file', { path: '  a.ts ' }))
    expect(ctx.tools.describeCall('read_file', { path: '  a.ts ' })).toBe('Reading a.ts')
    expect(ctx.tools.describeResult('read_file', { path: '  a.ts ' }, result)).toBe('Read a.ts')
  })

  it('invalid arguments, a throwing or non-string label fall back to the default line', async () => {
    const { ctx } = world()
    ctx.tools.register({
      ...tool('odd'),
      presentCall: () => 42 as unknown as string,
      presentResult: () => {
        throw new Error('ui bug')
      },
    })
    const ok: ToolExecutionResult = {
      isError: false,
      content: [{ type: 'text', text: 'first line\nsecond' }],
    }
    expect(ctx.tools.describeCall('read_file', { path: 7 })).toBe('read_file({"path":7})')
    expect(ctx.tools.describeCall('odd', { q: 1 })).toBe('odd({"q":1})')
    expect(ctx.tools.describeResult('odd', {}, ok)).toBe('odd: first line …')
  })

  it('the default result label names a failure and its code; a result without text says done', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      tool('boom', () => {
        throw new Error('disk full')
      }),
    )
    ctx.tools.register(tool('quiet', () => undefined))
    const failed = await ctx.tools.execute(call('boom'))
    expect(ctx.tools.describeResult('boom', {}, failed)).toBe(
      'boom failed (TOOL_FAILED): Tool "boom" failed: disk full',
    )
    expect(ctx.tools.describeResult('quiet', {}, await ctx.tools.execute(call('quiet')))).toBe('quiet: done')
    expect(ctx.tools.describeResult('gone', {}, failed)).toBe(
      'gone failed (TOOL_FAILED): Tool "boom" failed: disk full',
    )
  })

  it('labels are one line and clipped; a hostile result cannot make describeResult throw', () => {
    const { ctx } = setup()
    ctx.tools.register({ ...tool('long'), presentCall: () => `${'x'.repeat(1_000)}\nmore` })
    const label = ctx.tools.describeCall('long', {})
    expect(label.length).toBeLessThanOrEqual(200)
    expect(label).not.toContain('\n')
    const hostile = {
      isError: true,
      get error(): never {
        throw new Error('getter')
      },
    } as unknown as ToolExecutionResult
    expect(ctx.tools.describeResult('long', {}, hostile)).toBe('long: (a result that cannot be described)')
  })
})
