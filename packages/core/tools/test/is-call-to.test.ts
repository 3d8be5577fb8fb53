import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, isCallTo, type ToolCallInfo } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({ path: z.string().trim() }),
  execute: ({ path }) => `contents of ${path}`,
})

describe('isCallTo: policies typed from the tool’s schema', () => {
  it('narrows call.args to the tool’s argument type and decides on them without a cast', async () => {
    const { ctx } = setup()
    ctx.tools.register(readFile)
    ctx.on('tools/pre-execute', (c, next) =>
      isCallTo(c, readFile) && c.args.path.startsWith('/etc') ? { type: 'deny', reason: 'no /etc' } : next(),
    )
    expect(codeOf(await ctx.tools.execute(call('read_file', { path: ' /etc/passwd' })))).toBe('DENIED')
    expect(codeOf(await ctx.tools.execute(call('read_file', { path: 'src/a.ts' })))).toBe('OK')
  })

  it('holds in every stage: guards, wrappers, post-execute and tools/result observers', async () => {
    const { ctx } = setup()
    ctx.tools.register(readFile)
    const seen: string[] = []
    const note = (stage: string) => (c: ToolCallInfo) => void seen.push(`${stage}:${isCallTo(c, readFile)}`)
    ctx.tools.guard(note('guard'))
    ctx.on('tools/execute', (c, next) => (note('execute')(c), next()))
    ctx.on('tools/post-execute', (c, next) => (note('post')(c), next()))
    ctx.on('tools/result', (_r, c) => note('result')(c))
    await ctx.tools.execute(call('read_file', { path: 'a' }))
    expect(seen).toEqual(['guard:true', 'execute:true', 'post:true', 'result:true'])
  })

  it('is false for another tool of the same name, for invalid arguments and for unknown tools', async () => {
    const { ctx } = setup()
    ctx.tools.register(readFile)
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.register({ ...tool('read_file'), description: 'a shadow' })
    const verdicts: boolean[] = []
    ctx.on('tools/result', (_r, c) => void verdicts.push(isCallTo(c, readFile)))
    await agent.tools.execute(call('read_file', { path: 'a' }))
    await ctx.tools.execute(call('read_file', { path: 5 }))
    await ctx.tools.execute(call('nope'))
    await ctx.tools.execute(call('read_file', { path: 'a' }))
    expect(verdicts).toEqual([false, false, false, true])
  })

  it('the mark is invisible to JSON and Object.keys', async () => {
    const { ctx } = setup()
    ctx.tools.register(readFile)
    let info: ToolCallInfo | undefined
    ctx.on('tools/result', (_r, c) => void (info = c))
    await ctx.tools.execute(call('read_file', { path: 'a' }, { callId: 'k' }))
    expect(Object.keys(info!).sort()).toEqual(['args', 'callId', 'scope', 'step', 'toolName', 'turn'])
    expect(JSON.parse(JSON.stringify({ ...info!, scope: undefined }))).toEqual({
      callId: 'k',
      toolName: 'read_file',
      args: { path: 'a' },
    })
  })
})
