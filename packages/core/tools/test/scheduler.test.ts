import { describe, expect, it } from 'vitest'
import {
  TOOL_RUNTIME_SCHEDULER,
  ToolsError,
  installTools,
  resolveToolRuntimeScheduler,
  runToolBatch,
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

  it('T18: the direct stages answer without a promise when nothing is awaited, and with one when something is', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('plain', () => 'v'))
    ctx.tools.register(tool('later', async () => 'w'))
    const { direct } = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const prepared = direct!.prepare(call('plain'))
    expect(prepared).not.toBeInstanceOf(Promise)
    if (prepared instanceof Promise || prepared.stage !== 'dispatch') throw new Error('unreachable')
    const dispatched = direct!.dispatch(prepared.run)
    expect(dispatched).not.toBeInstanceOf(Promise)
    if (dispatched instanceof Promise) throw new Error('unreachable')
    const result = direct!.finalize(dispatched.run, dispatched.result)
    expect(result).toMatchObject({ isError: false, value: 'v' })
    // an async body: dispatch answers with a promise; a post-execute listener: finalize does
    const later = direct!.prepare(call('later'))
    if (later instanceof Promise || later.stage !== 'dispatch') throw new Error('unreachable')
    const pending = direct!.dispatch(later.run)
    expect(pending).toBeInstanceOf(Promise)
    const settled = await pending
    ctx.on('tools/post-execute', (_call, next) => next())
    const finalizing = direct!.finalize(settled.run, settled.result)
    expect(finalizing).toBeInstanceOf(Promise)
    expect(await finalizing).toMatchObject({ isError: false, value: 'w' })
    // misuse throws at once, where the promise forms reject
    expect(() => direct!.dispatch(prepared.run)).toThrow(
      expect.objectContaining({ code: 'ALREADY_FINISHED' }),
    )
  })

  it('T19: a runtime without direct stages (installed by an earlier compatible copy) is driven through its promise forms, with the same results', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('plain', (args) => `plain ${String(args.n)}`))
    ctx.tools.register(tool('later', async (args) => `later ${String(args.n)}`))
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const used: string[] = []
    const older = {
      protocol: real.protocol,
      concurrency: real.concurrency.bind(real),
      finish: real.finish.bind(real),
      synthesize: real.synthesize.bind(real),
      prepare: (input: Parameters<typeof real.prepare>[0]) => (used.push('prepare'), real.prepare(input)),
      dispatch: (run: Parameters<typeof real.dispatch>[0]) => (used.push('dispatch'), real.dispatch(run)),
      finalize: (...args: Parameters<typeof real.finalize>) => (
        used.push('finalize'),
        real.finalize(...args)
      ),
    }
    const inputs = () => [call('plain', { n: 1 }), call('later', { n: 2 }), call('plain', { n: 3 })]
    const viaOlder = await runToolBatch({ tools: { [TOOL_RUNTIME_SCHEDULER]: older }, calls: inputs() })
    const viaDirect = await runToolBatch({ tools: ctx.tools, calls: inputs() })
    const values = (results: readonly { isError: boolean; value?: unknown }[]) =>
      results.map((result) => (result.isError ? 'error' : result.value))
    expect(values(viaOlder)).toEqual(['plain 1', 'later 2', 'plain 3'])
    expect(values(viaDirect)).toEqual(values(viaOlder))
    expect(used.filter((stage) => stage === 'prepare')).toHaveLength(3)
    expect(used.filter((stage) => stage === 'dispatch')).toHaveLength(3)
    expect(used.filter((stage) => stage === 'finalize')).toHaveLength(3)
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
