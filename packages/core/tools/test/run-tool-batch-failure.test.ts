import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import {
  TOOL_RUNTIME_SCHEDULER,
  defineTool,
  runToolBatch,
  type ExecutionMode,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import type { Deferred } from '../../../../test-support/deferred.ts'
import { codeOf, deferred, setup, tick } from './fixtures.ts'

/** Parallel-safe (`p`) and exclusive (`x`) tools whose bodies wait for the test, honouring their signal. */
function gated(ctx: Context) {
  const gates = new Map<string, Deferred<string>>()
  const gate = (id: string): Deferred<string> => {
    let g = gates.get(id)
    if (g === undefined) gates.set(id, (g = deferred<string>()))
    return g
  }
  const aborted: string[] = []
  const body = async ({ id }: { id: string }, exec: { signal: AbortSignal }): Promise<string> => {
    exec.signal.addEventListener('abort', () => aborted.push(id), { once: true })
    return gate(id).promise
  }
  const parameters = z.object({ id: z.string() })
  ctx.tools.register(
    defineTool({
      name: 'p',
      description: 'parallel',
      parameters,
      isConcurrencySafe: () => true,
      execute: body,
    }),
  )
  ctx.tools.register(defineTool({ name: 'x', description: 'exclusive', parameters, execute: body }))
  return {
    release: (id: string) => gate(id).resolve(id),
    started: (id: string) => gates.has(id),
    aborted,
  }
}

const p = (id: string): ToolExecutionInput => ({ callId: id, name: 'p', arguments: JSON.stringify({ id }) })
const x = (id: string): ToolExecutionInput => ({ callId: id, name: 'x', arguments: JSON.stringify({ id }) })

/** Every `tools/result` a scope's observers see, as `callId code`. */
function observe(ctx: Context): string[] {
  const seen: string[] = []
  ctx.on('tools/result', (result, call) => void seen.push(`${call.callId} ${codeOf(result)}`))
  return seen
}

describe('a batch that fails has one owner of recovery (T13, T39)', () => {
  it('T39: a final result whose commit hook threw is offered again, never replaced: observers see one result per call', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const seen = observe(ctx)
    const commits: [number, string, ToolExecutionResult][] = []
    let refuse = true
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b'), p('c')],
      hooks: {
        onCommit: (index, input, result) => {
          commits.push([index, codeOf(result), result])
          if (index === 0 && refuse) {
            refuse = false
            throw new Error('disk full')
          }
        },
      },
    })
    const outcome = pending.catch((error: unknown) => error)
    await tick()
    g.release('a')
    expect(await outcome).toMatchObject({ message: 'disk full' })
    expect(commits.map(([index, code]) => `${index} ${code}`)).toEqual([
      '0 OK',
      '0 OK',
      '1 SCHEDULER_FAILED',
      '2 SCHEDULER_FAILED',
    ])
    // the same frozen object, not a copy: exactly one result exists for call a
    expect(commits[1]![2]).toBe(commits[0]![2])
    expect(seen).toEqual(['a OK', 'b SCHEDULER_FAILED', 'c SCHEDULER_FAILED'])
    // bodies still running when the batch failed were told to stop
    expect(g.aborted).toEqual(expect.arrayContaining(['b', 'c']))
  })

  it('T39: a commit in flight when the batch fails finishes first, and its result is the one recorded', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const seen = observe(ctx)
    const inPost = deferred()
    const post = deferred()
    ctx.on('tools/post-execute', async (call, next) => {
      if (call.callId === 'a') {
        inPost.resolve()
        await post.promise
      }
      return next()
    })
    const scheduler = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const realDispatch = scheduler.dispatch.bind(scheduler)
    const lose = deferred<never>()
    const dispatch = vi
      .spyOn(scheduler, 'dispatch')
      .mockImplementation((run) => (run.callId === 'b' ? lose.promise : realDispatch(run)))
    const commits: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b'), p('c')],
      hooks: { onCommit: (index, _input, result) => void commits.push(`${index} ${codeOf(result)}`) },
    })
    const outcome = pending.catch((error: unknown) => error)
    await tick()
    g.release('a')
    await inPost.promise
    // a is in post-execute when the runtime loses call b
    lose.reject(new Error('runtime lost call b'))
    post.resolve()
    expect(await outcome).toMatchObject({ message: 'runtime lost call b' })
    dispatch.mockRestore()
    // the failure aborted the batch, but a's post-execute finished within the abort grace (T38):
    // its checked result is committed as it is, once
    expect(commits).toEqual(['0 OK', '1 SCHEDULER_FAILED', '2 SCHEDULER_FAILED'])
    expect(seen).toEqual(['a OK', 'b SCHEDULER_FAILED', 'c SCHEDULER_FAILED'])
  })

  it('T13: calls that had not started when the batch failed are announced, then answered, in model order', async () => {
    const { ctx } = setup()
    const g = gated(ctx)
    const seen = observe(ctx)
    const hooks: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), x('X'), p('c')],
      hooks: {
        onStart: (index, _input, mode: ExecutionMode | undefined) =>
          void hooks.push(`start ${index} ${mode}`),
        onCommit: (index, _input, result) => {
          hooks.push(`commit ${index} ${codeOf(result)}`)
          if (index === 0) throw new Error('sink failed')
        },
      },
    })
    const outcome = pending.catch((error: unknown) => error)
    await tick()
    g.release('a')
    expect(await outcome).toMatchObject({ message: 'sink failed' })
    expect(g.started('X')).toBe(false)
    expect(hooks).toEqual([
      'start 0 parallel',
      'commit 0 OK',
      'commit 0 OK',
      'start 1 undefined',
      'commit 1 SCHEDULER_FAILED',
      'start 2 undefined',
      'commit 2 SCHEDULER_FAILED',
    ])
    expect(seen).toEqual(['a OK', 'X SCHEDULER_FAILED', 'c SCHEDULER_FAILED'])
  })

  it("T13/T39: executeBatch's failure branch: the scheduler really fails, the batch still resolves with one result per call, each observed once", async () => {
    const { ctx, logger } = setup()
    const g = gated(ctx)
    const seen = observe(ctx)
    const scheduler = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const realFinalize = scheduler.finalize.bind(scheduler)
    const finalize = vi.spyOn(scheduler, 'finalize').mockImplementation(async (run, result) => {
      if (run.callId === 'b') throw new Error('finalize broke')
      return realFinalize(run, result)
    })
    const pending = ctx.tools.executeBatch([p('a'), p('b'), x('X')])
    await tick()
    g.release('a')
    g.release('b')
    const results = await pending
    finalize.mockRestore()
    expect(results.map(codeOf)).toEqual(['OK', 'SCHEDULER_FAILED', 'SCHEDULER_FAILED'])
    expect(results[1]).toMatchObject({
      content: [
        { type: 'text', text: 'The tool scheduler failed before this call could finish: finalize broke' },
      ],
    })
    expect(Object.isFrozen(results[2])).toBe(true)
    expect(seen).toEqual(['a OK', 'b SCHEDULER_FAILED', 'X SCHEDULER_FAILED'])
    expect(logger.entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
      'tools.executeBatch(inputs, options): the batch failed; calls without a result got SCHEDULER_FAILED',
    ])
  })
})
