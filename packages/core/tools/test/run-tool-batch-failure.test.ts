import { describe, expect, it, vi } from 'vitest'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
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
    /** The body of `id` throws `error`. */
    fail: (id: string, error: Error) => gate(id).reject(error),
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
    // the stage the batch drives (the runtime's direct one)
    const stages = ctx.tools[TOOL_RUNTIME_SCHEDULER].direct!
    const realDispatch = stages.dispatch.bind(stages)
    const lose = deferred<never>()
    const dispatch = vi
      .spyOn(stages, 'dispatch')
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
    // the stage the batch drives (the runtime's direct one): it throws at once for b
    const stages = ctx.tools[TOOL_RUNTIME_SCHEDULER].direct!
    const realFinalize = stages.finalize.bind(stages)
    const finalize = vi.spyOn(stages, 'finalize').mockImplementation((run, result) => {
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

/** What `onLateOutcome` hears, as `index kind detail`. */
const lateLine = (index: number, late: LateToolOutcome): string =>
  `${index} ${late.kind}${late.kind === 'value' ? ` ${JSON.stringify(late.value)}` : late.kind === 'error' ? ` ${late.message}` : ''}`

describe('a failed batch drains the bodies that started (T38, T39)', () => {
  it('T38/T39: it settles only once every started body has returned (within the abort grace), each one’s outcome reported once before', async () => {
    // a grace far longer than the test: only the bodies' own return may end the wait
    const { ctx } = setup({ abortGraceMs: 60_000 })
    const g = gated(ctx)
    const seen = observe(ctx)
    const events: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b'), p('c')],
      hooks: {
        onCommit: (index, _input, result) => {
          events.push(`commit ${index} ${codeOf(result)}`)
          if (index === 0) throw new Error('disk full')
        },
        onLateOutcome: (index, _input, late) => void events.push(`late ${lateLine(index, late)}`),
      },
    })
    const outcome = pending.then(
      () => events.push('resolved'),
      (error: unknown) => events.push(`rejected ${(error as Error).message}`),
    )
    await tick()
    g.release('a')
    await tick()
    // b and c are answered at once, in model order; their bodies got the aborted signal and still run
    expect(events).toEqual([
      'commit 0 OK',
      'commit 0 OK',
      'commit 1 SCHEDULER_FAILED',
      'commit 2 SCHEDULER_FAILED',
    ])
    expect(g.aborted).toEqual(['b', 'c'])
    // b's body ignores the abort and returns a value: reported, but the batch still waits for c
    g.release('b')
    await tick()
    await tick()
    expect(events.slice(4)).toEqual(['late 1 value "b"'])
    // c's body throws (an aborted body's rejection is ABORTED, T38): reported, and now the batch settles
    g.fail('c', new Error('disk gone'))
    await outcome
    expect(events.slice(5)).toEqual([
      'late 2 error Tool "p" was aborted before it finished.',
      'rejected disk full',
    ])
    // observers saw exactly one result per call (T39): the late outcomes are not results
    expect(seen).toEqual(['a OK', 'b SCHEDULER_FAILED', 'c SCHEDULER_FAILED'])
  })

  it('T38/T39: a body that returned before recovery reached its call is not lost: its outcome is reported once', async () => {
    const { ctx } = setup({ abortGraceMs: 60_000 })
    const g = gated(ctx)
    const hold = deferred()
    const events: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b')],
      hooks: {
        // call a's record is slow and then fails: b's body returns meanwhile, its result never final
        onCommit: (index, _input, result) => {
          events.push(`commit ${index} ${codeOf(result)}`)
          if (index === 0 && events.length === 1) return hold.promise
        },
        onLateOutcome: (index, _input, late) => void events.push(`late ${lateLine(index, late)}`),
      },
    })
    const outcome = pending.catch((error: unknown) => error)
    await tick()
    g.release('a')
    await tick()
    g.release('b')
    await tick()
    expect(events).toEqual(['commit 0 OK'])
    hold.reject(new Error('disk full'))
    expect(await outcome).toMatchObject({ message: 'disk full' })
    expect(events).toEqual(['commit 0 OK', 'commit 0 OK', 'commit 1 SCHEDULER_FAILED', 'late 1 value "b"'])
  })

  it('T38: a body that outlives the abort grace after a failure: the batch settles after the grace, the body’s outcome is reported once when it ends', async () => {
    const { ctx } = setup({ abortGraceMs: 20, lateBodyCapMs: 60_000 })
    const g = gated(ctx)
    const lates: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b')],
      hooks: {
        onCommit: (index) => {
          if (index === 0) throw new Error('disk full')
        },
        onLateOutcome: (index, _input, late) => void lates.push(lateLine(index, late)),
      },
    })
    const outcome = pending.catch((error: unknown) => error)
    await tick()
    g.release('a')
    expect(await outcome).toMatchObject({ message: 'disk full' })
    expect(lates).toEqual([])
    g.release('b')
    await vi.waitFor(() => expect(lates).toEqual(['1 value "b"']))
    await tick()
    expect(lates).toEqual(['1 value "b"'])
  })

  it('T38/T39: an asynchronous onLateOutcome of a drained body is awaited before the batch settles', async () => {
    const { ctx } = setup({ abortGraceMs: 60_000 })
    const g = gated(ctx)
    const recorded = deferred()
    const events: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [p('a'), p('b')],
      hooks: {
        onCommit: (index) => {
          if (index === 0) throw new Error('disk full')
        },
        onLateOutcome: (index, _input, late) => {
          events.push(`late ${lateLine(index, late)}`)
          return recorded.promise.then(() => void events.push('late recorded'))
        },
      },
    })
    const outcome = pending.catch(
      (error: unknown) => void events.push(`rejected ${(error as Error).message}`),
    )
    await tick()
    g.release('a')
    await tick()
    g.release('b')
    await tick()
    await tick()
    expect(events).toEqual(['late 1 value "b"'])
    recorded.resolve()
    await outcome
    expect(events).toEqual(['late 1 value "b"', 'late recorded', 'rejected disk full'])
  })
})
