import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installSystemPrompt,
  runToolBatch,
  toolMessages,
  type PresentationMode,
  type ToolCallInfo,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

const parent = { callId: 'outer_1' }

/** A scope in `mode` with `read` (parallel-safe, labelled) and `write`, and the transport installed. */
function scope(mode: PresentationMode) {
  const { ctx } = setup({ defaultPresentation: mode })
  installCodeMode(ctx)
  const ran: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'read',
      description: 'Read a path',
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: () => true,
      presentCall: ({ path }) => `reading ${path}`,
      execute: ({ path }) => {
        ran.push(`read ${path}`)
        return `text of ${path}`
      },
    }),
  )
  ctx.tools.register(tool('write', () => (ran.push('write'), 'written')))
  return { ctx, ran }
}

describe('T7 at the executor: the same predicate as the prompt', () => {
  it('T7: under code, a model-direct call to a visible tool fails exactly like an unknown tool and never runs', async () => {
    const { ctx, ran } = scope('code')
    const refused = await ctx.tools.execute(call('read', { path: 'a' }))
    const unknown = await ctx.tools.execute(call('no_such_tool', { path: 'a' }))
    expect(codeOf(refused)).toBe('UNKNOWN_TOOL')
    expect(refused.isError && refused.error.info).toEqual(unknown.isError && unknown.error.info)
    // the same words, listing only what the model may call directly
    expect(refused.isError && refused.error.message).toBe(
      toolMessages.unknownTool('read', [RUN_CODE_TOOL_NAME], 50),
    )
    expect(unknown.isError && unknown.error.message).toBe(
      toolMessages.unknownTool('no_such_tool', [RUN_CODE_TOOL_NAME], 50),
    )
    expect(refused.content).toEqual([{ type: 'text', text: refused.isError ? refused.error.message : '' }])
    expect(ran).toEqual([])
  })

  it('T7: the same call with a parent token (a nested call) reaches the tool under every mode', async () => {
    for (const mode of ['native', 'code', 'both'] as const) {
      const { ctx, ran } = scope(mode)
      const result = await ctx.tools.execute(call('read', { path: mode }, { parent }))
      expect(codeOf(result), mode).toBe('OK')
      expect(ran).toEqual([`read ${mode}`])
    }
  })

  it('T7: a nested call naming run_code is refused like an unknown tool, listing what a program may call', async () => {
    for (const mode of ['native', 'code', 'both'] as const) {
      const { ctx } = scope(mode)
      const result = await ctx.tools.execute(
        call(RUN_CODE_TOOL_NAME, { code: '', description: 'd' }, { parent }),
      )
      expect(codeOf(result), mode).toBe('UNKNOWN_TOOL')
      expect(result.isError && result.error.message).toBe(
        toolMessages.unknownTool(RUN_CODE_TOOL_NAME, ['read', 'write'], 50),
      )
    }
  })

  it('T7: under native, a model-direct run_code fails like an unknown tool; under both it runs', async () => {
    const native = scope('native').ctx
    const refused = await native.tools.execute(
      call(RUN_CODE_TOOL_NAME, { code: 'return 1', description: 'd' }),
    )
    expect(refused.isError && refused.error.message).toBe(
      toolMessages.unknownTool(RUN_CODE_TOOL_NAME, ['read', 'write'], 50),
    )
    const both = scope('both').ctx
    const allowed = await both.tools.execute(call(RUN_CODE_TOOL_NAME, { code: 'return 1', description: 'd' }))
    // it got past the gate: it failed in its body, for want of a runtime
    expect(codeOf(allowed)).toBe('TOOL_FAILED')
    expect(allowed.isError && allowed.error.message).toMatch(/no code runtime in scope/)
    // and under both every tool is direct too
    expect(codeOf(await both.tools.execute(call('read', { path: 'x' })))).toBe('OK')
  })

  it('T7: the mode of the call’s own scope decides (nearest declaration), per scope', async () => {
    const { ctx } = scope('native')
    const agent = ctx.createScope({ name: 'agent:coder' })
    agent.tools.presentAs('code')
    expect(codeOf(await agent.tools.execute(call('read', { path: 'a' })))).toBe('UNKNOWN_TOOL')
    expect(codeOf(await ctx.tools.execute(call('read', { path: 'a' })))).toBe('OK')
  })

  it('T7, T21: concurrency fails closed for a refused call; the same call nested keeps its own mode', () => {
    const { ctx } = scope('code')
    expect(ctx.tools.concurrency(call('read', { path: 'a' }))).toEqual({ mode: 'exclusive', keys: [] })
    expect(ctx.tools.executionMode(call('read', { path: 'a' }, { parent }))).toBe('parallel')
    expect(scope('native').ctx.tools.executionMode(call('read', { path: 'a' }))).toBe('parallel')
  })

  it('T7: labels follow the gate — a refused call gets the default label, as an unknown tool does', () => {
    const { ctx } = scope('code')
    expect(ctx.tools.describeCall('read', { path: 'a' })).toBe('read({"path":"a"})')
    expect(ctx.tools.describeCall('read', { path: 'a' }, 'program')).toBe('reading a')
    expect(scope('native').ctx.tools.describeCall('read', { path: 'a' })).toBe('reading a')
    expect(ctx.tools.describeCall(RUN_CODE_TOOL_NAME, { code: '', description: 'sum the files' })).toBe(
      'run_code: sum the files',
    )
  })

  it('T7, T25: in a batch, refused calls are unknown-tool results in model order; nested ones run', async () => {
    const { ctx, ran } = scope('code')
    const results = await runToolBatch({
      tools: ctx.tools,
      calls: [call('read', { path: '1' }), call('read', { path: '2' }, { parent }), call('write')],
    })
    expect(results.map(codeOf)).toEqual(['UNKNOWN_TOOL', 'OK', 'UNKNOWN_TOOL'])
    expect(ran).toEqual(['read 2'])
  })

  it('T7: policy learns the parent of a nested call (parentCallId), and nothing for a direct one', async () => {
    const { ctx } = scope('both')
    const seen: (ToolCallInfo['parentCallId'] | 'absent')[] = []
    ctx.on('tools/pre-execute', (info, next) => {
      seen.push('parentCallId' in info ? info.parentCallId : 'absent')
      return next()
    })
    await ctx.tools.execute(call('read', { path: 'a' }, { parent }))
    await ctx.tools.execute(call('read', { path: 'b' }))
    expect(seen).toEqual(['outer_1', 'absent'])
  })

  it('T7: a parent token must name a call; anything else is refused as misuse', async () => {
    const { ctx } = scope('code')
    await expect(ctx.tools.execute(call('read', {}, { parent: { callId: '' } }))).rejects.toThrow(
      /input\.parent must be \{ callId \}/,
    )
    await expect(
      ctx.tools.execute(call('read', {}, { parent: 'outer' as unknown as { callId: string } })),
    ).rejects.toThrow(/input\.parent must be \{ callId \}/)
  })
})

describe('T12 and the registry listing: the transport is not a restrictable tool', () => {
  it('T12: a restriction cannot hide run_code (allow lists never name it), and its known list leaves it out', async () => {
    const { ctx } = scope('code')
    const agent = ctx.createScope({ name: 'agent:reader' })
    agent.tools.restrict({ allow: ['read'] })
    expect(agent.tools.get(RUN_CODE_TOOL_NAME)?.name).toBe(RUN_CODE_TOOL_NAME)
    const result = await agent.tools.execute(call(RUN_CODE_TOOL_NAME, { code: '', description: 'd' }))
    expect(result.isError && result.error.message).toMatch(/no code runtime/) // past the gate and the filter
    // run_code is registered in the root's own layer, and still not among the names a restriction may use
    expect(() => ctx.createScope({ name: 'agent:other' }).tools.restrict({ deny: ['nope'] })).toThrow(
      /known tools: read, write$/,
    )
  })

  it('T2, T5: list() and schemas() leave the transport out; the prompt shows it only where the mode allows', () => {
    const { ctx } = scope('both')
    installSystemPrompt(ctx)
    expect(ctx.tools.list().map((t) => t.name)).toEqual(['read', 'write'])
    expect(ctx.tools.schemas().map((s) => s.name)).toEqual(['read', 'write'])
    expect(ctx.systemPrompt!.tools('p').map((s) => s.name)).toEqual([RUN_CODE_TOOL_NAME, 'read', 'write'])
    const native = scope('native').ctx
    installSystemPrompt(native)
    expect(native.systemPrompt!.tools('p').map((s) => s.name)).toEqual(['read', 'write'])
    expect(native.systemPrompt!.sdk()).not.toMatch(/run_code/)
  })

  it('T12: run_code can only be installed through installCodeMode, once per scope', () => {
    const { ctx } = scope('code')
    expect(() => ctx.tools.register(tool(RUN_CODE_TOOL_NAME))).toThrow(/reserved Code Mode transport/)
    expect(() => installCodeMode(ctx)).toThrow(/"run_code" is already registered in scope "root"/)
  })
})
