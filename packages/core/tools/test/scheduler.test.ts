import { describe, expect, it } from 'vitest'
import {
  TOOL_RUNTIME_SCHEDULER,
  ToolsError,
  installTools,
  resolveToolRuntimeScheduler,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

describe('TOOL_RUNTIME_SCHEDULER', () => {
  it('T18: prepare → dispatch when the body is still needed; dispatch → post-result; finalize commits', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => 'v'))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    expect(prepared.stage).toBe('dispatch')
    const dispatched = await scheduler.dispatch(prepared.run)
    expect(dispatched.stage).toBe('post-result')
    const result = await scheduler.finalize(dispatched.run, dispatched.result)
    expect(result).toMatchObject({ isError: false, value: 'v' })
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('T18: failures that already match failure semantics are final-result and skip post-execute', async () => {
    const { ctx } = setup()
    let postExecute = 0
    ctx.on('tools/post-execute', (_c, next) => {
      postExecute++
      return next()
    })
    const scheduler = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const unknown = await scheduler.prepare(call('missing'))
    expect(unknown.stage).toBe('final-result')
    if (unknown.stage !== 'final-result') throw new Error('unreachable')
    expect(codeOf(scheduler.finish(unknown.run, unknown.result))).toBe('UNKNOWN_TOOL')
    expect(postExecute).toBe(0)
  })

  it('T18: a policy answer is post-result and goes through finalize', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    ctx.on('tools/pre-execute', () => ({ type: 'respond', content: 'cached' }))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    expect(prepared.stage).toBe('post-result')
  })

  it('T18: a call is finished exactly once, and only by the runtime that prepared it', async () => {
    const { ctx } = setup()
    const other = setup().ctx
    ctx.tools.register(tool('t'))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    const dispatched = await scheduler.dispatch(prepared.run)
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
    await expect(
      resolveToolRuntimeScheduler(other.tools).finalize(dispatched.run, dispatched.result),
    ).rejects.toMatchObject({
      code: 'FOREIGN_RUN',
    })
    await scheduler.finalize(dispatched.run, dispatched.result)
    await expect(scheduler.finalize(dispatched.run, dispatched.result)).rejects.toThrow(
      /already has its result; a call gets exactly one/,
    )
  })

  it('T19: without ctx.tools the scheduler lookup fails with a clear message, not a TypeError', () => {
    let caught: unknown
    try {
      resolveToolRuntimeScheduler(undefined)
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('NOT_INSTALLED')
    expect((caught as Error).message).toMatch(
      /call installTools\(ctx\) first \(consumer: @deepseek-ai\/dsh-tools@\d+\.\d+\.\d+ at \//,
    )
  })

  it('T19: the key is a Symbol.for key, shared by every copy of the package', () => {
    expect(TOOL_RUNTIME_SCHEDULER).toBe(Symbol.for('@deepseek-ai/dsh-tools.runtime-scheduler'))
  })

  it('T19: a scheduler from an incompatible major version is refused, naming both versions and paths', () => {
    const { ctx } = setup()
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const foreign = {
      [TOOL_RUNTIME_SCHEDULER]: {
        ...real,
        protocol: {
          packageName: '@deepseek-ai/dsh-tools',
          version: '7.0.0',
          path: '/plugins/x/node_modules/@deepseek-ai/dsh-tools',
        },
      },
    }
    expect(() => resolveToolRuntimeScheduler(foreign)).toThrow(
      /ctx.tools was installed by @deepseek-ai\/dsh-tools@7\.0\.0 at \/plugins\/x\/node_modules\/@deepseek-ai\/dsh-tools, but @deepseek-ai\/dsh-tools@\d+\.\d+\.\d+ at .+ cannot drive it/,
    )
  })

  it('installing twice fails with ALREADY_INSTALLED, naming who installed it', () => {
    const { ctx } = setup()
    let caught: unknown
    try {
      installTools(ctx.createScope({ name: 'agent' }))
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('ALREADY_INSTALLED')
    expect((caught as Error).message).toMatch(
      /already installed in scope "agent" \(by @deepseek-ai\/dsh-tools@\d+\.\d+\.\d+ at /,
    )
  })
})
