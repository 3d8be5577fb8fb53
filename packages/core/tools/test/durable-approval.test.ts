import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createToolBatch,
  defineTool,
  readApprovalAnswer,
  resolveToolRuntimeScheduler,
  runToolBatch,
  ToolsError,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, deferred, setup, tool } from './fixtures.ts'

const SUSPENDABLE = { kind: 'suspendable' } as const

/** `deploy` asks (with a reason); `read` is allowed. The approver answers `answer`. */
function world(answer: ApprovalDecision = { type: 'pending' }) {
  const env = setup()
  const runs: string[] = []
  const seen: string[] = []
  env.ctx.tools.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy (parallel-safe, so it may start while a read still runs)',
      parameters: z.object({ env: z.string().optional() }),
      isConcurrencySafe: () => true,
      execute: ({ env }) => void runs.push(`deploy ${String(env)}`),
    }),
  )
  env.ctx.tools.register(tool('read', () => void runs.push('read')))
  env.ctx.on('tools/pre-execute', (c, next) => {
    seen.push(c.toolName)
    return c.toolName === 'deploy' ? { type: 'ask', reason: 'deploys need a yes' } : next()
  })
  const asked: ApprovalRequest[] = []
  env.ctx.provide('approval', {
    request: async (request) => {
      asked.push(request)
      return answer
    },
  })
  const results: [string, ToolExecutionResult][] = []
  env.ctx.on('tools/result', (result, c) => void results.push([c.callId, result]))
  return { ...env, runs, seen, asked, results }
}

describe('durable approvals in the pipeline', () => {
  it('T18: a pending answer suspends a suspendable call: no result, and the spent run is refused by every stage', async () => {
    const { ctx, runs, results } = world()
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = await scheduler.prepare(call('deploy', { env: 'prod' }, { approval: SUSPENDABLE }))
    expect(prepared.stage).toBe('approval-pending')
    if (prepared.stage !== 'approval-pending') return
    expect(prepared.reason).toBe('deploys need a yes')
    await expect(scheduler.dispatch(prepared.run)).rejects.toMatchObject({ code: 'WRONG_STAGE' })
    expect(runs).toEqual([])
    expect(results).toEqual([])
  })

  it('T13: a pending answer is a denial where the caller cannot wait (ApprovalPending), one result', async () => {
    const { ctx, runs, results } = world()
    const result = await ctx.tools.execute(call('deploy', { env: 'prod' }))
    expect(codeOf(result)).toBe('DENIED')
    expect(result.isError && result.error.info?.name).toBe('ApprovalPending')
    expect(results).toHaveLength(1)
    expect(runs).toEqual([])
  })

  it('execute, executeBatch and runToolBatch refuse a suspendable call: they answer every call', async () => {
    const { ctx } = world()
    const input = call('deploy', {}, { approval: SUSPENDABLE })
    await expect(ctx.tools.execute(input)).rejects.toThrow(/needs a driver that records approvals/)
    await expect(ctx.tools.executeBatch([input])).rejects.toThrow(/inputs\[0\]\.approval/)
    await expect(runToolBatch({ tools: ctx.tools, calls: [input] })).rejects.toThrow(ToolsError)
  })

  it('bad approval inputs are refused naming the field', async () => {
    const { ctx } = world()
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    expect(() => scheduler.prepare(call('deploy', {}, { approval: { kind: 'later' } as never }))).toThrow(
      /input\.approval must be/,
    )
    expect(() =>
      scheduler.prepare(
        call('deploy', {}, { approval: { kind: 'answered', answer: { answer: 'maybe' } } as never }),
      ),
    ).toThrow(/input\.approval\.answer\.answer must be 'once', 'session' or 'reject'/)
    expect(() =>
      scheduler.prepare(
        call(
          'deploy',
          {},
          {
            approval: {
              kind: 'answered',
              answer: { answer: 'session', scope: { matches: () => true } },
            } as never,
          },
        ),
      ),
    ).toThrow(/scope must be 'arguments' or 'tool'/)
  })

  it('T13: a reject answer is the call’s one result (ApprovalRejected with the feedback) and no policy runs', async () => {
    const { ctx, runs, seen, asked, results } = world()
    const result = await resolveAndRun(
      ctx,
      call(
        'deploy',
        { env: 'prod' },
        {
          approval: { kind: 'answered', answer: { answer: 'reject', feedback: 'not on a Friday' } },
        },
      ),
    )
    expect(codeOf(result)).toBe('DENIED')
    expect(result.isError && result.error.info?.name).toBe('ApprovalRejected')
    expect(result.content).toEqual([
      { type: 'text', text: 'The user rejected the call to "deploy": not on a Friday' },
    ])
    expect([runs, seen, asked]).toEqual([[], [], []])
    expect(results).toHaveLength(1)
  })

  it('a once answer answers the ask policy raises again, in place of the approval service; a deny still denies', async () => {
    const { ctx, runs, seen, asked } = world()
    const once = { kind: 'answered', answer: { answer: 'once' } } as const
    const ok = await resolveAndRun(ctx, call('deploy', { env: 'prod' }, { approval: once }))
    expect(codeOf(ok)).toBe('OK')
    expect(runs).toEqual(['deploy prod'])
    expect(seen).toEqual(['deploy'])
    expect(asked).toEqual([])
    // once is once: the next call of the same tool asks the service again
    await resolveAndRun(ctx, call('deploy', { env: 'prod' }))
    expect(asked).toHaveLength(1)
    // a policy that now denies is not overridden by an earlier yes
    ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'frozen' }), { priority: 100 })
    const denied = await resolveAndRun(ctx, call('deploy', { env: 'prod' }, { approval: once }))
    expect(denied.isError && denied.error.info?.name).toBe('PolicyDenied')
  })

  it('a session answer records a grant with its scope (arguments by default)', async () => {
    const { ctx, asked, runs } = world({ type: 'allowed-once' })
    const session = { kind: 'answered', answer: { answer: 'session' } } as const
    await resolveAndRun(ctx, call('deploy', { env: 'staging' }, { approval: session }))
    await resolveAndRun(ctx, call('deploy', '{ "env" : "staging" }'))
    expect(asked).toEqual([])
    await resolveAndRun(ctx, call('deploy', { env: 'prod' }))
    expect(asked.map((r) => r.args.env)).toEqual(['prod'])
    expect(runs).toHaveLength(3)
  })

  it('T13: a reject answered after the tool was unregistered (or hidden) stays DENIED / ApprovalRejected with the feedback', async () => {
    const env = world()
    const reject = { kind: 'answered', answer: { answer: 'reject', feedback: 'not on a Friday' } } as const
    const agent = env.ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['deploy'] })
    const hidden = await resolveAndRun(agent, call('deploy', { env: 'prod' }, { approval: reject }))
    // a tool registered again with a schema the recorded arguments no longer meet
    const off = env.ctx.tools.register(tool('gone'))
    off()
    const unregistered = await resolveAndRun(env.ctx, call('gone', '{"not json', { approval: reject }))
    for (const [result, name] of [
      [hidden, 'deploy'],
      [unregistered, 'gone'],
    ] as const) {
      expect(codeOf(result)).toBe('DENIED')
      expect(result.isError && result.error.info?.name).toBe('ApprovalRejected')
      expect(result.content).toEqual([
        { type: 'text', text: `The user rejected the call to "${name}": not on a Friday` },
      ])
    }
    expect([env.runs, env.seen, env.asked]).toEqual([[], [], []])
  })

  it('T28: an answer with a field it does not have (grantAll, feedbak, scop) is refused with INVALID_ARGUMENT naming it', async () => {
    const { ctx, runs } = world()
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const answered = (answer: unknown) =>
      call('deploy', { env: 'prod' }, { approval: { kind: 'answered', answer } as never })
    for (const [answer, message] of [
      [
        { answer: 'session', grantAll: true },
        `tools.prepare(input): input.approval.answer has unknown field(s) "grantAll"; an answer 'session' has only answer, scope`,
      ],
      [
        { answer: 'reject', feedbak: 'typo' },
        `tools.prepare(input): input.approval.answer has unknown field(s) "feedbak"; an answer 'reject' has only answer, feedback`,
      ],
      [
        { answer: 'session', scop: 'tool' },
        `tools.prepare(input): input.approval.answer has unknown field(s) "scop"; an answer 'session' has only answer, scope`,
      ],
      [
        { answer: 'once', scope: 'tool' },
        `tools.prepare(input): input.approval.answer has unknown field(s) "scope"; an answer 'once' has only answer`,
      ],
    ] as const) {
      let caught: unknown
      try {
        await scheduler.prepare(answered(answer))
      } catch (error) {
        caught = error
      }
      expect(ToolsError.isInstance(caught) && caught.code).toBe('INVALID_ARGUMENT')
      expect((caught as Error).message).toBe(message)
    }
    expect(() =>
      scheduler.prepare(
        call('deploy', {}, { approval: { kind: 'suspendable', answer: { answer: 'once' } } as never }),
      ),
    ).toThrow(/input\.approval has unknown field\(s\) "answer"; \{ kind: 'suspendable' \} has only kind/)
    expect(() =>
      readApprovalAnswer('resume(options)', 'options.approval', {
        answer: 'reject',
        feedback: 'x',
        grantAll: 1,
      }),
    ).toThrow(
      `resume(options): options.approval has unknown field(s) "grantAll"; an answer 'reject' has only answer, feedback`,
    )
    // a field set to undefined says nothing; a getter that throws is named, not rethrown
    expect(readApprovalAnswer('w', 'a', { answer: 'once', scope: undefined })).toEqual({ answer: 'once' })
    expect(() =>
      readApprovalAnswer('w', 'a', {
        answer: 'reject',
        get feedback(): string {
          throw new Error('no')
        },
      }),
    ).toThrow('w: reading a.feedback threw: no')
    expect(runs).toEqual([])
  })

  it('T26: an abort that comes while the approver decides wins over a pending answer', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('deploy'))
    ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    const answer = deferred<ApprovalDecision>()
    ctx.provide('approval', { request: () => answer.promise })
    const controller = new AbortController()
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const prepared = scheduler.prepare(
      call('deploy', {}, { approval: SUSPENDABLE, signal: controller.signal }),
    )
    controller.abort()
    answer.resolve({ type: 'pending' })
    const settled = await prepared
    expect(settled.stage).toBe('final-result')
    if (settled.stage === 'final-result') expect(codeOf(settled.result)).toBe('ABORTED_BEFORE_DISPATCH')
  })
})

describe('a batch parks at a pending approval', () => {
  /** read (slow) · deploy (asks, pending) · read: the batch with its hook trace. */
  async function parked(
    options: { readonly abortAfterSuspend?: boolean; readonly suspendThrows?: boolean } = {},
  ) {
    const env = world()
    const gate = deferred<void>()
    env.ctx.tools.register(
      defineTool({
        name: 'slow',
        description: 'A slow parallel read',
        parameters: z.object({}),
        isConcurrencySafe: () => true,
        execute: async () => {
          await gate.promise
          return 'slow done'
        },
      }),
    )
    const trace: string[] = []
    const controller = new AbortController()
    const batch = createToolBatch({
      tools: env.ctx.tools,
      signal: controller.signal,
      hooks: {
        onStart: (index, _input, mode) => void trace.push(`start ${index} ${mode ?? 'skipped'}`),
        onSuspend: (index, _input, reason) => {
          trace.push(`suspend ${index} (${reason})`)
          if (options.suspendThrows === true) throw new Error('session refused')
        },
        onCommit: (index, _input, result) => void trace.push(`commit ${index} ${codeOf(result)}`),
      },
    })
    batch.add(call('slow', {}, { approval: SUSPENDABLE }))
    batch.add(call('deploy', { env: 'prod' }, { approval: SUSPENDABLE }))
    batch.add(call('read', {}, { approval: SUSPENDABLE }))
    batch.close()
    // the deploy's approval is pending while the slow read still runs
    await new Promise((resolve) => setTimeout(resolve, 0))
    while (!batch.view().suspended) await new Promise((resolve) => setTimeout(resolve, 0))
    if (options.abortAfterSuspend === true) controller.abort()
    gate.resolve()
    return { ...env, trace, outcome: await batch.outcome, view: batch.view() }
  }

  it('T25: calls before it commit, it is reported in its commit turn, nothing after it starts', async () => {
    const { trace, outcome, runs, results, view } = await parked()
    expect(trace).toEqual([
      'start 0 parallel',
      'start 1 parallel',
      'commit 0 OK',
      'suspend 1 (deploys need a yes)',
    ])
    expect(outcome).toMatchObject({ kind: 'suspended', index: 1, reason: 'deploys need a yes' })
    expect(outcome.results.map(codeOf)).toEqual(['OK'])
    expect(runs).toEqual([])
    // T39: observers saw exactly the one result that exists
    expect(results.map(([, r]) => codeOf(r))).toEqual(['OK'])
    expect(view).toMatchObject({ committed: 1, queued: 1, suspended: true })
  })

  it('T26: an abort after the suspension drains what runs and leaves the suspension in place', async () => {
    const { trace, outcome } = await parked({ abortAfterSuspend: true })
    expect(outcome.kind).toBe('suspended')
    expect(trace.at(-1)).toBe('suspend 1 (deploys need a yes)')
    expect(trace.filter((t) => t.startsWith('start'))).toHaveLength(2)
  })

  it('T13: an onSuspend that throws fails the batch, and every call still gets one result', async () => {
    const { trace, outcome, results } = await parked({ suspendThrows: true })
    expect(outcome.kind).toBe('failed')
    expect(outcome.results.map(codeOf)).toEqual(['OK', 'SCHEDULER_FAILED', 'SCHEDULER_FAILED'])
    expect(trace.slice(-3)).toEqual([
      'commit 1 SCHEDULER_FAILED',
      'start 2 skipped',
      'commit 2 SCHEDULER_FAILED',
    ])
    expect(results).toHaveLength(3)
  })
})

/** Runs one call through the staged surface as a scheduler would. */
async function resolveAndRun(
  ctx: ReturnType<typeof setup>['ctx'],
  input: Parameters<ReturnType<typeof resolveToolRuntimeScheduler>['prepare']>[0],
): Promise<ToolExecutionResult> {
  const scheduler = resolveToolRuntimeScheduler(ctx.tools)
  const prepared = await scheduler.prepare(input)
  switch (prepared.stage) {
    case 'dispatch': {
      const dispatched = await scheduler.dispatch(prepared.run)
      return dispatched.stage === 'post-result'
        ? scheduler.finalize(dispatched.run, dispatched.result)
        : scheduler.finish(dispatched.run, dispatched.result)
    }
    case 'post-result':
      return scheduler.finalize(prepared.run, prepared.result)
    case 'final-result':
      return scheduler.finish(prepared.run, prepared.result)
    case 'approval-pending':
      throw new Error('unexpected suspension')
    default: {
      const never: never = prepared
      return never
    }
  }
}
