import { describe, expect, it } from 'vitest'
import { LlmError, textBlock, toolCallBlock, type ModelRequest } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { AgentLoopError, historyFromSession, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { deferred, gatedTool, quiesce, type Journal } from './support/fixtures.ts'
import { agentWith, shape } from './support/agents.ts'

const echo = (id: string, text: string) => toolCallBlock({ id, name: 'echo', args: { text } })
const note = (id: string, text: string, conclude = false) =>
  toolCallBlock({ id, name: 'note', args: { text, conclude } })

describe('the step loop', () => {
  it('runs a multi-step turn: tool results and deferred contexts feed the next step, the final text ends it', async () => {
    const { agent, session, model } = agentWith(
      [[echo('e1', 'one'), echo('e2', 'two')], [note('n1', 'remember this')], [textBlock('all done')]],
      { system: 'be brief' },
    )
    const events: AgentEvent[] = []
    const result = await agent.run('please work', { onEvent: (e) => events.push(e) })
    expect(result).toMatchObject({ turn: 1, reason: 'completed', steps: 3, text: 'all done' })
    expect(result.usage.totalTokens).toBeGreaterThan(0)
    expect(shape(session.events())).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call e1',
      'tool/call e2',
      'tool/result e1',
      'tool/result e2',
      'assistant/message',
      'tool/call n1',
      'tool/result n1',
      'user/message tool-context',
      'assistant/message',
      'turn/end completed',
    ])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    const third = model.requests[2]!
    expect(third.system).toBe('be brief')
    expect(third.tools.map((t) => t.name)).toEqual(['echo', 'note'])
    expect(third.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'user',
    ])
    expect(third.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'remember this' }],
    })
    expect(historyFromSession(session.events())).toEqual([...third.messages, result.message])
    const steps = session
      .events()
      .filter((e) => e.type === 'assistant/message')
      .map((e) => (e.data as { step: number }).step)
    expect(steps).toEqual([1, 2, 3])

    const kinds = events.map((e) => e.type)
    expect(kinds.slice(0, 3)).toEqual(['turn-start', 'step-start', 'model-call-start'])
    // a streaming model's calls are queued as they arrive, before the stream ends (T40); results after it
    expect(kinds.indexOf('tool-call-queued')).toBeLessThan(kinds.indexOf('model-call-end'))
    expect(kinds.indexOf('model-call-end')).toBeLessThan(kinds.indexOf('tool-call-end'))
    expect(kinds.at(-1)).toBe('turn-end')
    expect(kinds.filter((k) => k === 'step-start')).toHaveLength(3)
    expect(kinds.filter((k) => k === 'tool-call-end')).toHaveLength(3)
    for (const event of events) {
      expect(event.turn).toBe(1)
      if ('durationMs' in event) expect(event.durationMs).toBeGreaterThanOrEqual(0)
    }
    const turnEnd = events.at(-1) as Extract<AgentEvent, { type: 'turn-end' }>
    expect(turnEnd.result).toBe(result)
  })

  it('T27: a result that concludes the turn ends it after the step, contexts still recorded', async () => {
    const { agent, session, model } = agentWith([[note('n1', 'wrap up', true)], [textBlock('never asked')]])
    const result = await agent.run('go')
    expect(result).toMatchObject({ reason: 'concluded', steps: 1 })
    expect(model.requests).toHaveLength(1)
    expect(shape(session.events()).slice(-3)).toEqual([
      'tool/result n1',
      'user/message tool-context',
      'turn/end concluded',
    ])
  })

  it('T26/T27: an abort that comes after a concluding result, before the step ends, ends the turn "aborted"', async () => {
    const { agent, session, model } = agentWith([[note('n1', 'wrap up', true)], [textBlock('never asked')]])
    const controller = new AbortController()
    const result = await agent.run('go', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'tool-call-end') controller.abort()
      },
    })
    expect(result).toMatchObject({ reason: 'aborted', steps: 1 })
    expect(model.requests).toHaveLength(1)
    expect(session.events().at(-1)!.data).toEqual({ turn: 1, reason: 'aborted', steps: 1 })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('maxSteps ends a turn whose model keeps calling tools', async () => {
    const { agent, session, model } = agentWith([[echo('a', '1')], [echo('b', '2')], [echo('c', '3')]], {
      config: { maxSteps: 2 },
    })
    const result = await agent.run('loop')
    expect(result).toMatchObject({ reason: 'max-steps', steps: 2 })
    expect(model.requests).toHaveLength(2)
    expect(session.events().at(-1)!.data).toEqual({ turn: 1, reason: 'max-steps', steps: 2 })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('abort during the model call ends the turn "aborted" and leaves nothing unanswered', async () => {
    const entered = deferred()
    const { agent, session } = agentWith([
      (request: ModelRequest) => {
        entered.resolve()
        return new Promise(() => void request) // never answers; only the abort ends it
      },
    ])
    const controller = new AbortController()
    const events: AgentEvent[] = []
    const running = agent.run('hello', { signal: controller.signal, onEvent: (e) => events.push(e) })
    await entered.promise
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ reason: 'aborted', steps: 0, message: undefined, text: '' })
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end aborted'])
    expect(events.find((e) => e.type === 'model-call-end')).toMatchObject({ outcome: 'aborted' })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T26: abort during a tool batch: started calls drain, the rest get ABORTED_BEFORE_DISPATCH, the turn ends "aborted"', async () => {
    const journal: Journal = []
    const { root, agent, session, model } = agentWith([
      [echo('e0', 'x'), toolCallBlock({ id: 'g1', name: 'gate', args: { key: null } }), echo('e2', 'y')],
      [textBlock('unused')],
    ])
    const gate = gatedTool({ name: 'gate', journal })
    root.tools.register(gate.definition)
    const controller = new AbortController()
    const running = agent.run('work', { signal: controller.signal })
    while (journal.length === 0) await quiesce()
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ reason: 'aborted', steps: 1 })
    expect(model.requests).toHaveLength(1)
    const codes = session
      .events()
      .filter((e) => e.type === 'tool/result')
      .map((e) => (e.data as unknown as ToolResultEventData).error?.code ?? 'OK')
    expect(codes).toEqual(['OK', 'ABORTED', 'ABORTED_BEFORE_DISPATCH'])
    expect(shape(session.events()).at(-1)).toBe('turn/end aborted')
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('a model error ends the turn "error" (recorded) and rejects run with that error', async () => {
    const { agent, session } = agentWith([[echo('a', '1')]])
    const events: AgentEvent[] = []
    const error = await agent.run('go', { onEvent: (e) => events.push(e) }).catch((e: unknown) => e)
    expect(LlmError.isInstance(error) && error.code).toBe('SCRIPT_EXHAUSTED')
    expect(shape(session.events()).at(-1)).toBe('turn/end error')
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', error, result: { reason: 'error', steps: 1 } })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('an assistant message that cannot be paired (duplicate tool-call ids) is refused before it is recorded', async () => {
    const { agent, session } = agentWith([[echo('same', '1'), echo('same', '2')]], {
      eagerToolExecution: false,
    })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('INVALID_MODEL_RESPONSE')
    expect((error as Error).message).toMatch(/tool-call ids must be non-empty and unique/)
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
  })

  it('T40: streamed, a repeated tool-call id ends the stream; the complete call before it is recorded and answered', async () => {
    const { agent, session } = agentWith([[echo('same', '1'), echo('same', '2')]])
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('INVALID_MODEL_RESPONSE')
    expect((error as Error).message).toMatch(/tool-call ids must be non-empty and unique/)
    expect(shape(session.events())).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call same',
      'tool/result same',
      'turn/end error',
    ])
    const message = session.events()[2]!.data as { message: { content: unknown[] }; finishReason: string }
    expect(message.finishReason).toBe('error')
    expect(message.message.content).toEqual([echo('same', '1')])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('uses ctx.systemPrompt.tools(provider) and .text() for what the model sees when the scope has one', async () => {
    const { agent, model } = agentWith([[textBlock('ok')]])
    const seen: string[] = []
    // Only the two methods the loop calls.
    agent.ctx.provide('systemPrompt', {
      tools: (provider: string) => {
        seen.push(provider)
        return [{ name: 'run_code', description: 'Run a program', parameters: { type: 'object' } }]
      },
      text: ({ provider }: { provider: string }) => `prompt for ${provider}`,
    } as never)
    await agent.run('hi')
    expect(seen).toEqual(['scripted'])
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['run_code'])
    expect(model.requests[0]!.system).toBe('prompt for scripted')
  })

  it('turn numbers continue across runs and history carries earlier turns', async () => {
    const { agent, session, model } = agentWith([[textBlock('first')], [textBlock('second')]])
    expect((await agent.run('one')).turn).toBe(1)
    expect((await agent.run({ role: 'user', content: [{ type: 'text', text: 'two' }] })).turn).toBe(2)
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(
      session
        .events()
        .filter((e) => e.type === 'turn/start')
        .map((e) => e.data),
    ).toEqual([{ turn: 1, sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown }, { turn: 2 }])
  })

  it('one turn at a time (BUSY), none after dispose (DISPOSED); dispose aborts a running turn and then disposes the scope', async () => {
    const entered = deferred()
    const { agent, session } = agentWith([
      () => {
        entered.resolve()
        return new Promise(() => {})
      },
    ])
    const first = agent.run('a')
    await entered.promise
    const busy = await agent.run('b').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(busy) && busy.code).toBe('BUSY')
    expect(agent.running).toBe(true)
    agent.dispose()
    expect(agent.ctx.scope.disposed).toBe(false)
    expect(await first).toMatchObject({ reason: 'aborted' })
    expect(agent.ctx.scope.disposed).toBe(true)
    expect(shape(session.events()).at(-1)).toBe('turn/end aborted')
    const disposed = await agent.run('c').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(disposed) && disposed.code).toBe('DISPOSED')
  })

  it('agent.ctx is a child scope named after the agent that provides agentLoop', () => {
    const { root, agent, session } = agentWith([], { config: { maxParallelToolCalls: 3 } })
    expect(agent.ctx.parent).toBe(root)
    expect(agent.ctx.scope.name).toBe('tester')
    expect(agent.ctx.agentLoop).toEqual({ config: { maxParallelToolCalls: 3, maxSteps: 25 }, session })
    expect(root.agentLoop).toBeUndefined()
    agent.dispose()
    expect(agent.ctx.scope.disposed).toBe(true)
  })
})
