import { describe, expect, it } from 'vitest'
import { caller, codeOf, input, localWorker, nameOf, uniqueQueue } from './support/harness.ts'

describe('remote dispatch: the body runs on a worker, the result is checked here', () => {
  it('D1: a remote call runs its body on the worker, not here, and the value comes back as a local one would', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute, rec: here } = await caller(queue)
    // 2^60 written exactly, as a model would: a double carries it, so it crosses unchanged
    const call = {
      ...input('echo', {}),
      arguments: '{"value":{"a":[1,"two",null,true],"n":1152921504606846976}}',
    }
    const result = await execute(call)
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: `{"a":[1,"two",null,true],"n":${2 ** 60}}` }],
      value: { a: [1, 'two', null, true], n: 2 ** 60 },
    })
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${call.callId}@local`])
    expect(await here.redis.llen(`${queue}:started:${call.callId}`)).toBe(1)
    expect(await here.redis.lrange(`${queue}:started:${call.callId}`, 0, -1)).toEqual(['local'])
  })

  it('D4/T14: the worker’s value is checked like a local value: toContent renders it, the output schema refuses a wrong one', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const { execute } = await caller(queue)
    const ok = await execute(input('square', { n: 3 }))
    expect(ok).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'squared: 9' }],
      value: { squared: 9 },
    })
    const broken = await execute(input('square', { n: -1 }))
    expect(codeOf(broken)).toBe('INVALID_TOOL_OUTPUT')
  })

  it('D4/T13: a body that throws is TOOL_FAILED with its message; a value JSON cannot carry is INVALID_TOOL_OUTPUT', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const { execute } = await caller(queue)
    const failed = await execute(input('fail', {}))
    expect(codeOf(failed)).toBe('TOOL_FAILED')
    expect(failed.isError && failed.error.message).toBe('Tool "fail" failed: TypeError: boom')
    const lossy = await execute(input('bigint', {}))
    expect(codeOf(lossy)).toBe('INVALID_TOOL_OUTPUT')
    expect(lossy.isError && lossy.error.message).toContain('value.n')
  })

  it('T37: context a remote body defers and its concludeTurn reach the result', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const { execute } = await caller(queue)
    expect(await execute(input('notes', {}))).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'noted' }],
      value: 'noted',
      additionalContexts: ['first note', 'second note'],
      concludesTurn: true,
    })
  })

  it('T37: context a remote body defers before it throws, or before its value is refused, reaches the result as a local body’s does', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const names = ['notes_then_fail', 'notes_then_bigint']
    const remote = await caller(queue, { remote: names })
    // The oracle: the same tools run in the calling process.
    const local = await caller(uniqueQueue(), { remote: ['echo'] })
    for (const name of names) {
      const here = await local.execute(input(name, {}))
      expect(here.isError).toBe(true)
      expect(here.additionalContexts).toEqual([
        name === 'notes_then_fail' ? 'before the throw' : 'before the value',
      ])
      expect([name, await remote.execute(input(name, {}))]).toEqual([name, here])
    }
  })

  it('D2: policy runs here: a denied remote call never reaches the queue; an unmarked tool runs here', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { ctx, execute, dispatch } = await caller(queue, { remote: ['square'] })
    ctx.on('tools/pre-execute', (call, next) =>
      call.toolName === 'square' ? { type: 'deny', reason: 'not today' } : next(),
    )
    const denied = await execute(input('square', { n: 2 }))
    expect(codeOf(denied)).toBe('DENIED')
    const local = input('echo', { value: 'here' })
    expect(codeOf(await execute(local))).toBe('OK')
    expect(dispatch.isRemote('echo')).toBe(false)
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([`${local.callId}@caller`])
  })

  it('D6: a tool the workers do not have is PIPELINE_FAILED (RemoteToolUnknown), not a hang', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const { ctx, execute } = await caller(queue)
    const { defineTool } = await import('@deepseek-ai/dsh-tools')
    const { z } = await import('zod')
    ctx.tools.register(
      defineTool({
        name: 'missing_tool',
        description: 'x',
        parameters: z.object({}),
        execute: () => 'local',
      }),
    )
    const result = await execute(input('missing_tool', {}))
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(nameOf(result)).toBe('RemoteToolUnknown')
  })
})
