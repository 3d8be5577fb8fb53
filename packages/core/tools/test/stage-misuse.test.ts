import { describe, expect, it } from 'vitest'
import { ToolsError, resolveToolRuntimeScheduler, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, codeOf, echo, setup, tool } from './fixtures.ts'

function errorOf(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe('T39: the staged surface refuses misuse', () => {
  it('T39: dispatch of a run that prepare denied is refused and the body never runs', async () => {
    const { ctx } = setup()
    let ran = 0
    ctx.tools.register(tool('rm', () => ++ran))
    ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'never' }))
    const observed: ToolExecutionResult[] = []
    ctx.on('tools/result', (result) => void observed.push(result))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('rm'))
    expect(prepared.stage).toBe('final-result')
    const error: unknown = await scheduler.dispatch(prepared.run).catch((e: unknown) => e)
    expect(ToolsError.isInstance(error) && error.code).toBe('WRONG_STAGE')
    expect((error as Error).message).toMatch(
      /^dispatch\(run\): call "call_\d+" \(rm\) is at stage "final-result"; only a run handed out at stage "dispatch" may be dispatched$/,
    )
    expect(ran).toBe(0)
    // the refusal changed nothing: the call is still answered exactly once, with its real result
    expect(observed).toEqual([])
    if (prepared.stage !== 'final-result') throw new Error('unreachable')
    const result = scheduler.finish(prepared.run, prepared.result)
    expect(codeOf(result)).toBe('DENIED')
    expect(observed).toEqual([result])
  })

  it.each(['unknown tool', 'invalid arguments'] as const)(
    'T39: dispatch of a final-result run (%s) is refused',
    async (kind) => {
      const { ctx } = setup()
      let ran = 0
      ctx.tools.register(tool('t', () => ++ran))
      ctx.tools.register(echo)
      const scheduler = resolveToolRuntimeScheduler(ctx.tools)
      const prepared = await scheduler.prepare(
        kind === 'unknown tool' ? call('missing') : call('echo', { text: 5 }),
      )
      expect(prepared.stage).toBe('final-result')
      await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
      expect(ran).toBe(0)
    },
  )

  it('T39: dispatch of a post-result run (a policy answer) is refused; the body never runs', async () => {
    const { ctx } = setup()
    let ran = 0
    ctx.tools.register(tool('t', () => ++ran))
    ctx.on('tools/pre-execute', () => ({ type: 'respond', content: 'cached' }))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    expect(prepared.stage).toBe('post-result')
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
    expect(ran).toBe(0)
  })

  it('T39: dispatching twice is refused, also while the first dispatch is in flight', async () => {
    const { ctx } = setup()
    let ran = 0
    // an async body, so the first dispatch is still in flight (a plain value would end it at once)
    ctx.tools.register(tool('t', async () => ++ran))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    const first = scheduler.dispatch(prepared.run)
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({
      code: 'WRONG_STAGE',
      message: expect.stringMatching(/is at stage "dispatching"/) as unknown,
    })
    await first
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
    expect(ran).toBe(1)
  })

  it('T39: finish refuses a post-result run (it would skip tools/post-execute) and a run not yet dispatched', async () => {
    const { ctx } = setup()
    let postExecute = 0
    ctx.tools.register(tool('t', () => 'secret'))
    ctx.on('tools/post-execute', () => {
      postExecute++
      return { type: 'block', feedback: 'redacted' }
    })
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    const forged: ToolExecutionResult = { isError: false, content: [{ type: 'text', text: 'forged' }] }
    expect(ToolsError.isInstance(errorOf(() => scheduler.finish(prepared.run, forged)))).toBe(true)
    await expect(scheduler.finalize(prepared.run, forged)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
    const dispatched = await scheduler.dispatch(prepared.run)
    expect(dispatched.stage).toBe('post-result')
    const error = errorOf(() => scheduler.finish(dispatched.run, dispatched.result))
    expect(ToolsError.isInstance(error) && error.code).toBe('WRONG_STAGE')
    expect((error as Error).message).toMatch(/only a run handed out at stage "final-result" may be finished/)
    expect(postExecute).toBe(0)
    expect(codeOf(await scheduler.finalize(dispatched.run, dispatched.result))).toBe('BLOCKED')
    expect(postExecute).toBe(1)
  })

  it('T39: finalize refuses a final-result run', async () => {
    const { ctx } = setup()
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('missing'))
    if (prepared.stage !== 'final-result') throw new Error('unreachable')
    await expect(scheduler.finalize(prepared.run, prepared.result)).rejects.toMatchObject({
      code: 'WRONG_STAGE',
      message: expect.stringMatching(
        /only a run handed out at stage "post-result" may be finalized/,
      ) as unknown,
    })
    expect(codeOf(scheduler.finish(prepared.run, prepared.result))).toBe('UNKNOWN_TOOL')
  })

  it('T39: finish and finalize refuse a result other than the one handed out with the run', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('rm'))
    ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'never' }))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('rm'))
    if (prepared.stage !== 'final-result') throw new Error('unreachable')
    const forged: ToolExecutionResult = { isError: false, content: [{ type: 'text', text: 'ran fine' }] }
    const error = errorOf(() => scheduler.finish(prepared.run, forged))
    expect(ToolsError.isInstance(error) && error.code).toBe('RESULT_MISMATCH')
    expect((error as Error).message).toMatch(
      /^finish\(run, result\): call "call_\d+" \(rm\) was handed out with a different result; pass back the result prepare\(\) or dispatch\(\) returned with the run$/,
    )
    expect(codeOf(scheduler.finish(prepared.run, prepared.result))).toBe('DENIED')
  })

  it('T39: a finished run is refused by every stage with ALREADY_FINISHED', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('t'))
    const dispatched = await scheduler.dispatch(prepared.run)
    await scheduler.finalize(dispatched.run, dispatched.result)
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'ALREADY_FINISHED' })
    await expect(scheduler.finalize(dispatched.run, dispatched.result)).rejects.toMatchObject({
      code: 'ALREADY_FINISHED',
    })
    expect(() => scheduler.finish(dispatched.run, dispatched.result)).toThrow(
      /already has its result; a call gets exactly one/,
    )
  })
})
