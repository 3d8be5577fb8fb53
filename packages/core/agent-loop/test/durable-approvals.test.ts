import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock, type ScriptedTurn } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  pendingApprovals,
  verifyToolPairs,
  type AnySession,
  type Session,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { defineTool, installTools, type ApprovalRequest } from '@deepseek-ai/dsh-tools'
import { AgentLoopError, createAgent, type AgentEvent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { shape } from './support/agents.ts'
import { asyncStore } from './support/async-store.ts'

/**
 * One process: `read` (allowed, defers a context), `deploy` (policy asks; the approver leaves it
 * pending, as a harness with nobody at the keyboard does). Runs the body counts in `runs`.
 */
function processWith(
  session: AnySession,
  turns: readonly ScriptedTurn[],
  options: { eager?: boolean; atDeploy?: () => void; deploy?: boolean } = {},
) {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const runs: string[] = []
  root.tools.register(
    defineTool({
      name: 'read',
      description: 'Read a file.',
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ path }, exec) => {
        runs.push(`read ${path}`)
        exec.deferContext(`read ${path}`)
        return `contents of ${path}`
      },
    }),
  )
  // a later process may run without the tool (`deploy: false`): unregistered since the pause
  if (options.deploy !== false)
    root.tools.register(
      defineTool({
        name: 'deploy',
        description: 'Deploy.',
        parameters: z.object({ env: z.string() }),
        execute: ({ env }) => {
          runs.push(`deploy ${env}`)
          options.atDeploy?.()
          return `deployed to ${env}`
        },
      }),
    )
  root.on('tools/pre-execute', (call, next) =>
    call.toolName === 'deploy' ? { type: 'ask', reason: 'deploys need a yes' } : next(),
  )
  const asked: ApprovalRequest[] = []
  root.provide('approval', {
    request: async (request) => {
      asked.push(request)
      return { type: 'pending' }
    },
  })
  const model = createScriptedModel({ turns })
  const agent = createAgent({
    ctx: root,
    name: 'ops',
    model,
    session,
    ...(options.eager === undefined ? {} : { eagerToolExecution: options.eager }),
  })
  const events: AgentEvent[] = []
  return { root, agent, model, runs, asked, events, onEvent: (event: AgentEvent) => void events.push(event) }
}

const read = (id: string, path: string) => toolCallBlock({ id, name: 'read', args: { path } })
const deploy = (id: string, env: string) => toolCallBlock({ id, name: 'deploy', args: { env } })

function resultOf(session: Session, callId: string): ToolResultEventData | undefined {
  return session
    .events()
    .map((event) => event.data as unknown as ToolResultEventData)
    .find((data) => data.message?.content?.[0]?.callId === callId && data.message.role === 'tool')
}

/** What resuming the paused turn with `once` records after the paused log's 7 events. */
const AFTER_ONCE = [
  'approval/answer',
  'tool/result d1',
  'tool/call r2',
  'tool/result r2',
  'user/message tool-context',
  'assistant/message',
  'turn/end completed',
]

/** Pauses turn 1 at `deploy d1`, between `read r1` (answered) and `read r2` (not started). */
async function pausedTurn(options: { eager?: boolean } = {}) {
  const session = createMemorySession()
  const first = processWith(
    session,
    [[read('r1', 'a.txt'), deploy('d1', 'prod'), read('r2', 'b.txt')]],
    options,
  )
  const result = await first.agent.run('Read a.txt, deploy, then read b.txt.', { onEvent: first.onEvent })
  first.agent.dispose()
  return { session, first, result }
}

describe('durable approvals in the loop', () => {
  for (const eager of [true, false]) {
    it(`T13: a pending approval pauses the turn; the step commits what comes before it (${eager ? 'streamed' : 'plain'} step)`, async () => {
      const { session, first, result } = await pausedTurn({ eager })
      expect(result.reason).toBe('paused')
      expect(result.pendingApproval).toMatchObject({
        turn: 1,
        step: 1,
        callId: 'd1',
        name: 'deploy',
        arguments: '{"env":"prod"}',
        reason: 'deploys need a yes',
      })
      expect(first.runs).toEqual(['read a.txt'])
      expect(shape(session.events())).toEqual([
        'turn/start',
        'user/message user',
        'assistant/message',
        'tool/call r1',
        'tool/result r1',
        'tool/call d1',
        'approval/request',
      ])
      expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
      expect(pendingApprovals(session.events())).toEqual([result.pendingApproval])
      // the request carries what the answered call deferred, for the step that continues
      expect(session.events().at(-1)?.data).toMatchObject({ contexts: ['read a.txt'] })
      const kinds = first.events.map((event) => event.type)
      expect(kinds.slice(-3)).toEqual(['approval-requested', 'step-end', 'turn-end'])
    })
  }

  it('a new turn is refused while an approval is pending, naming the call and how to answer', async () => {
    const { session } = await pausedTurn()
    const next = processWith(session, [])
    await expect(next.agent.run('Something else.')).rejects.toSatisfy(
      (error) =>
        AgentLoopError.isInstance(error) &&
        error.code === 'RESUME_REQUIRED' &&
        /waits for the approval of call "d1" \(deploy: deploys need a yes\)/.test(error.message),
    )
  })

  it('resume without an answer returns the paused result again and records nothing', async () => {
    const { session, result } = await pausedTurn()
    const before = session.lastSeq
    const next = processWith(session, [])
    const again = await next.agent.resume()
    expect(again).toEqual(result)
    expect(session.lastSeq).toBe(before)
  })

  it('an answer naming a call that is not pending is refused with a clear error, and nothing is recorded', async () => {
    const { session } = await pausedTurn()
    const before = session.lastSeq
    const next = processWith(session, [])
    await expect(next.agent.resume({ approval: { callId: 'r1', answer: 'once' } })).rejects.toThrow(
      /names call "r1", whose approval is not pending: it already has its result \(seq 5\); pending: "d1" \(deploy\)/,
    )
    await expect(next.agent.resume({ approval: { callId: 'nope', answer: 'once' } })).rejects.toThrow(
      /no call in this session has that id/,
    )
    await expect(next.agent.resume({ approval: { callId: 'd1', answer: 'later' } as never })).rejects.toThrow(
      /options\.approval\.answer must be 'once', 'session' or 'reject'/,
    )
    expect(session.lastSeq).toBe(before)
  })

  it('T25: resume with once runs the approved call, then the calls after it, and the turn goes on', async () => {
    const { session } = await pausedTurn()
    const next = processWith(session, [[textBlock('Deployed; read both files.')]])
    const result = await next.agent.resume({
      approval: { callId: 'd1', answer: 'once' },
      onEvent: next.onEvent,
    })
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'Deployed; read both files.' })
    expect(next.runs).toEqual(['deploy prod', 'read b.txt'])
    expect(next.asked).toEqual([]) // the answer stood in for the approval service
    expect(shape(session.events()).slice(7)).toEqual(AFTER_ONCE)
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    // contexts in model order: the one deferred before the pause, then the one after it
    const contexts = session.events().find((e) => (e.data as { source?: string }).source === 'tool-context')
    expect(
      (contexts?.data as { message: { content: { text: string }[] } }).message.content.map((b) => b.text),
    ).toEqual(['read a.txt', 'read b.txt'])
    expect(next.events.map((e) => e.type).slice(0, 3)).toEqual([
      'turn-start',
      'approval-answered',
      'step-start',
    ])
    expect(next.model.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user' })
  })

  it('T25/T42: an asynchronous store pauses and resumes the same way, every event durable before it counts', async () => {
    const store = asyncStore()
    const first = processWith(store.session, [
      [read('r1', 'a.txt'), deploy('d1', 'prod'), read('r2', 'b.txt')],
    ])
    const paused = await first.agent.run('Read a.txt, deploy, then read b.txt.')
    first.agent.dispose()
    expect(paused.reason).toBe('paused')
    expect(shape(store.stored).slice(-2)).toEqual(['tool/call d1', 'approval/request'])
    expect(store.stored).toEqual(store.session.events())
    // the approved call runs only once its answer is durable
    let answerDurable: boolean | undefined
    const next = processWith(store.session, [[textBlock('Deployed; read both files.')]], {
      atDeploy: () => (answerDurable = store.stored.some((event) => event.type === 'approval/answer')),
    })
    const result = await next.agent.resume({ approval: { callId: 'd1', answer: 'once' } })
    expect(answerDurable).toBe(true)
    expect(result).toMatchObject({ reason: 'completed', steps: 2 })
    expect(next.runs).toEqual(['deploy prod', 'read b.txt'])
    expect(shape(store.stored).slice(7)).toEqual(AFTER_ONCE)
    expect(store.stored).toEqual(store.session.events())
    expect(verifyToolPairs(store.stored)).toEqual({ ok: true, problems: [] })
  })

  it('T13: resume with reject gives the call its denial result (with the feedback) and runs nothing of it', async () => {
    const { session } = await pausedTurn()
    const next = processWith(session, [[textBlock('Understood, no deploy.')]])
    const result = await next.agent.resume({
      approval: { callId: 'd1', answer: 'reject', feedback: 'not today' },
    })
    expect(result?.reason).toBe('completed')
    expect(next.runs).toEqual(['read b.txt'])
    expect(resultOf(session, 'd1')).toMatchObject({
      error: { name: 'ApprovalRejected', code: 'DENIED' },
      message: {
        content: [{ content: [{ type: 'text', text: 'The user rejected the call to "deploy": not today' }] }],
      },
    })
    expect(session.events().find((e) => e.type === 'approval/answer')?.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'd1',
      answer: 'reject',
      feedback: 'not today',
    })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T13: a reject answered in a process where the tool is no longer registered stays DENIED / ApprovalRejected with the feedback', async () => {
    const { session } = await pausedTurn()
    const next = processWith(session, [[textBlock('Understood, no deploy.')]], { deploy: false })
    const result = await next.agent.resume({
      approval: { callId: 'd1', answer: 'reject', feedback: 'not today' },
    })
    expect(result?.reason).toBe('completed')
    expect(next.runs).toEqual(['read b.txt'])
    expect(resultOf(session, 'd1')).toMatchObject({
      error: { name: 'ApprovalRejected', code: 'DENIED' },
      message: {
        content: [{ content: [{ type: 'text', text: 'The user rejected the call to "deploy": not today' }] }],
      },
    })
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
  })

  it('T28: an answer with a field it does not have (grantAll, feedbak, scop) is refused with INVALID_ARGUMENT; nothing is recorded', async () => {
    const { session } = await pausedTurn()
    const before = session.lastSeq
    const next = processWith(session, [])
    for (const [approval, field, answer, fields] of [
      [{ callId: 'd1', answer: 'session', grantAll: true }, 'grantAll', 'session', 'answer, scope'],
      [{ callId: 'd1', answer: 'reject', feedbak: 'not today' }, 'feedbak', 'reject', 'answer, feedback'],
      [{ callId: 'd1', answer: 'session', scop: 'tool' }, 'scop', 'session', 'answer, scope'],
    ] as const) {
      const error: unknown = await next.agent.resume({ approval: approval as never }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(AgentLoopError)
      expect((error as AgentLoopError).code).toBe('INVALID_ARGUMENT')
      expect((error as Error).message).toMatch(
        new RegExp(
          `options\\.approval has unknown field\\(s\\) "${field}"; an answer '${answer}' has only ${fields}$`,
        ),
      )
    }
    expect(session.lastSeq).toBe(before)
    expect(pendingApprovals(session.events()).map((p) => p.callId)).toEqual(['d1'])
  })

  it('a session answer is recorded and covers later asks of the tool, also in a later process', async () => {
    const { session } = await pausedTurn()
    const second = processWith(session, [[textBlock('Done.')]])
    await second.agent.resume({ approval: { callId: 'd1', answer: 'session', scope: 'tool' } })
    second.agent.dispose()
    // a third process: a new turn deploys elsewhere; the recorded grant answers the ask
    const third = processWith(session, [[deploy('d2', 'staging')], [textBlock('Staging too.')]])
    const result = await third.agent.run('Deploy staging as well.')
    expect(result.reason).toBe('completed')
    expect(third.runs).toEqual(['deploy staging'])
    expect(third.asked).toEqual([])
    expect(pendingApprovals(session.events())).toEqual([])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('a session answer with the default scope covers only the same arguments', async () => {
    const { session } = await pausedTurn()
    const second = processWith(session, [[textBlock('Done.')]])
    await second.agent.resume({ approval: { callId: 'd1', answer: 'session' } })
    const third = processWith(session, [[deploy('d2', 'prod'), deploy('d3', 'staging')]])
    const result = await third.agent.run('Deploy prod and staging.')
    // prod is covered; staging asks, and pauses the turn again
    expect(third.runs).toEqual(['deploy prod'])
    expect(result).toMatchObject({ reason: 'paused', pendingApproval: { callId: 'd3' } })
  })

  it('a step with two approvals pauses twice; each answer continues exactly where it stopped', async () => {
    const session = createMemorySession()
    const first = processWith(session, [[deploy('d1', 'eu'), deploy('d2', 'us')]])
    const paused1 = await first.agent.run('Deploy eu and us.')
    expect(paused1.pendingApproval?.callId).toBe('d1')
    const second = processWith(session, [])
    const paused2 = (await second.agent.resume({ approval: { callId: 'd1', answer: 'once' } })) as TurnResult
    expect(paused2).toMatchObject({ reason: 'paused', pendingApproval: { callId: 'd2' } })
    expect(second.runs).toEqual(['deploy eu'])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    const third = processWith(session, [[textBlock('Both deployed.')]])
    const done = await third.agent.resume({ approval: { callId: 'd2', answer: 'once' } })
    expect(done?.reason).toBe('completed')
    expect(third.runs).toEqual(['deploy us'])
    expect(shape(session.events()).filter((s) => s.startsWith('approval/'))).toEqual([
      'approval/request',
      'approval/answer',
      'approval/request',
      'approval/answer',
    ])
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
  })

  it('executeToolCalls (a harness’s own loop) cannot pause: a pending approval is a denial there', async () => {
    const session = createMemorySession()
    const { root } = processWith(session, [])
    const { executeToolCalls, resolveAgentLoopConfig } = await import('@deepseek-ai/dsh-agent-loop')
    const harness: Context = root.createScope({ name: 'harness' })
    harness.provide('agentLoop', { config: resolveAgentLoopConfig(), session })
    const { results } = await executeToolCalls({
      ctx: harness,
      turn: 1,
      step: 1,
      toolCalls: [deploy('d1', 'prod')],
      acceptContext: () => undefined,
    })
    expect(results[0]?.isError && results[0].error.info?.name).toBe('ApprovalPending')
  })
})
