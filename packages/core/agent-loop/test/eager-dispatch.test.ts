import { describe, expect, it } from 'vitest'
import { createScriptedModel, textBlock, type LanguageModel } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import {
  AgentLoopError,
  createAgent,
  historyFromSession,
  resumeAgent,
  type AgentEvent,
  type StepEndEvent,
  type ToolCallQueuedEvent,
  type ToolCallStartEvent,
} from '@deepseek-ai/dsh-agent-loop'
import { shape } from './support/agents.ts'
import { deferred } from './support/fixtures.ts'
import {
  agentOn,
  callOf,
  callsUntil,
  eagerTools,
  notEager,
  pairedForProvider,
  resultCodes,
  saysDone,
  sessionRefusingMessages,
  settleAll,
} from './support/eager.ts'

const of = <T extends AgentEvent['type']>(events: readonly AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type)

/** The assistant message, each call citing it, results in model order: the shape every outcome leaves. */
function expectReplayable(events: readonly SessionEvent[]): void {
  expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
  expect(pairedForProvider(historyFromSession(events))).toBe(true)
}

describe('eager dispatch (T40)', () => {
  it('T40: a parallel-safe call starts while the model still streams; its records follow the assistant message', async () => {
    const { root, journal, par } = eagerTools()
    const gate = deferred()
    const { agent, session } = agentOn(root, [
      async (s) => {
        s.text('Looking. ')
        s.call(callOf('a', 'par'))
        await gate.promise
        s.text('More words while the tool runs.')
        s.finish()
      },
      saysDone,
    ])
    const events: AgentEvent[] = []
    const running = agent.run('go', { onEvent: (e) => events.push(e) })
    await settleAll()
    // the stream is held open by the test, and the body already runs
    expect(journal).toEqual(['policy:a', 'start:a'])
    expect(of(events, 'model-call-end')).toEqual([])
    // it even finishes before the stream ends: nothing of the step is recorded yet
    par.release('a')
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'end:a'])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user'])
    gate.resolve()
    expect(await running).toMatchObject({ reason: 'completed', steps: 2, text: 'done' })

    const log = session.events()
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call a',
      'tool/result a',
      'assistant/message',
      'turn/end completed',
    ])
    expect(log[3]!.sourceEventSeqs).toEqual([log[2]!.seq])
    expect(log[4]!.sourceEventSeqs).toEqual([log[3]!.seq])
    expect((log[2]!.data as { message: unknown }).message).toEqual({
      role: 'assistant',
      content: [textBlock('Looking. More words while the tool runs.'), callOf('a', 'par')],
    })
    expectReplayable(log)

    const queued = of(events, 'tool-call-queued')
    const start = of(events, 'tool-call-start')
    expect(queued.map((e: ToolCallQueuedEvent) => e.eager)).toEqual([true])
    expect(start.map((e: ToolCallStartEvent) => e.duringStream)).toEqual([true])
    const modelEnd = of(events, 'model-call-end')[0]!
    const types = events.map((e) => e.type)
    expect(types.indexOf('tool-call-settled')).toBeLessThan(types.indexOf('model-call-end'))
    expect(types.indexOf('model-call-end')).toBeLessThan(types.indexOf('tool-call-end'))

    // the figures are the events' own timestamps, combined as documented
    const stepEnd = of(events, 'step-end')[0] as StepEndEvent
    const settled = of(events, 'tool-call-settled')[0]!
    const end = of(events, 'tool-call-end')[0]!
    const runMs = settled.at - start[0]!.at
    expect(stepEnd.eager).toEqual({
      streamEndedAt: modelEnd.at,
      queuedDuringStream: 1,
      startedDuringStream: 1,
      overlapMs: Math.max(0, Math.min(settled.at, modelEnd.at) - start[0]!.at),
      savedMs: Math.max(0, modelEnd.at + runMs - end.at),
    })
    expect(of(events, 'step-end')[1]!.eager).toBeUndefined()
    agent.dispose()
  })

  it('T40: an exclusive call and a tool declaring eager: false wait for the end of the stream', async () => {
    const { root, journal, par, ex, lazy } = eagerTools()
    const gate = deferred()
    const { agent, session } = agentOn(root, [
      callsUntil(gate, callOf('a', 'par'), callOf('l', 'lazy'), callOf('b', 'par'), callOf('x', 'ex')),
      (s) => s.finish(),
    ])
    const events: AgentEvent[] = []
    const running = agent.run('go', { onEvent: (e) => events.push(e) })
    await settleAll()
    // a starts; l (eager: false) holds the line, so b, although parallel-safe, waits behind it (model order)
    expect(journal).toEqual(['policy:a', 'start:a'])
    par.release('a')
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'end:a'])
    gate.resolve()
    await settleAll()
    expect(journal.slice(3)).toEqual(['policy:l', 'start:l', 'policy:b', 'start:b'])
    lazy.release('l')
    par.release('b')
    await settleAll()
    // the exclusive call starts only once everything before it has committed
    expect(journal.slice(7)).toEqual(['end:l', 'end:b', 'policy:x', 'start:x'])
    ex.release('x')
    expect(await running).toMatchObject({ reason: 'completed' })
    const starts = of(events, 'tool-call-start')
    expect(starts.map((e) => [e.callId, e.mode, e.duringStream])).toEqual([
      ['a', 'parallel', true],
      ['l', 'parallel', false],
      ['b', 'parallel', false],
      ['x', 'exclusive', false],
    ])
    expect(of(events, 'tool-call-queued').every((e) => e.eager)).toBe(true)
    expect(of(events, 'step-end')[0]!.eager).toMatchObject({ queuedDuringStream: 4, startedDuringStream: 1 })
    expect(resultCodes(session.events())).toEqual({ a: 'OK', l: 'OK', b: 'OK', x: 'OK' })
    expectReplayable(session.events())
    agent.dispose()
  })

  it('T40/T25: policy runs in model order across an eager call and a later one', async () => {
    const { root, journal, par } = eagerTools()
    const policyGate = deferred()
    root.on('tools/pre-execute', async (info, next) => {
      if (info.callId === 'a') await policyGate.promise
      journal.push(`policy-done:${info.callId}`)
      return next()
    })
    const gate = deferred()
    const { agent, session } = agentOn(root, [
      callsUntil(gate, callOf('a', 'par'), callOf('b', 'par')),
      (s) => s.finish(),
    ])
    const running = agent.run('go')
    await settleAll()
    // b is complete and parallel-safe, but its policy waits for a's
    expect(journal).toEqual(['policy:a'])
    policyGate.resolve()
    await settleAll()
    expect(journal).toEqual(['policy:a', 'policy-done:a', 'start:a', 'policy:b', 'policy-done:b', 'start:b'])
    par.release('b')
    par.release('a')
    gate.resolve()
    await running
    // results still commit in model order (T25)
    expect(shape(session.events()).filter((t) => t.startsWith('tool/'))).toEqual([
      'tool/call a',
      'tool/call b',
      'tool/result a',
      'tool/result b',
    ])
    expectReplayable(session.events())
    agent.dispose()
  })

  it('T40/T38: the stream fails after calls started: they are aborted and drained, every complete call is answered, the turn ends "error"; resume works', async () => {
    const { root, journal } = eagerTools()
    const drop = new Error('the connection dropped mid-stream')
    const gate = deferred()
    const session = createMemorySession()
    const { agent } = agentOn(
      root,
      [
        async (s) => {
          s.reasoning('think')
          s.call(callOf('a', 'par'))
          s.call(callOf('b', 'par'))
          s.call(callOf('x', 'ex'))
          s.text('and then')
          await gate.promise
          s.fail(drop)
        },
      ],
      { session },
    )
    const running = agent.run('go').catch((e: unknown) => e)
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'policy:b', 'start:b'])
    gate.resolve()
    expect(await running).toBe(drop)
    expect(journal.slice(4).sort()).toEqual(['end:a', 'end:b'])
    const log = session.events()
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call a',
      'tool/call b',
      'tool/result a',
      'tool/result b',
      'tool/call x',
      'tool/result x',
      'turn/end error',
    ])
    const assistant = log[2]!.data as { message: unknown; finishReason: string; usage: unknown }
    expect(assistant).toMatchObject({
      finishReason: 'error',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think' },
          textBlock('and then'),
          callOf('a', 'par'),
          callOf('b', 'par'),
          callOf('x', 'ex'),
        ],
      },
    })
    expect(resultCodes(log)).toEqual({ a: 'ABORTED', b: 'ABORTED', x: 'ABORTED_BEFORE_DISPATCH' })
    expectReplayable(log)

    // a new process resumes the session: the failed turn had ended, the next one runs normally
    const next = eagerTools()
    const resumed = await resumeAgent({
      ctx: next.root,
      name: 'eager',
      model: createScriptedModel({ turns: [[textBlock('fresh start')]] }),
      session,
    })
    expect(resumed.result).toMatchObject({ turn: 1, reason: 'error', steps: 1 })
    expect(await resumed.agent.run('again')).toMatchObject({
      turn: 2,
      reason: 'completed',
      text: 'fresh start',
    })
    expectReplayable(session.events())
    resumed.agent.dispose()
    agent.dispose()
  })

  it('T40/T26: an abort while the model streams: started calls drain, the stream is left with return(), the turn ends "aborted"; resume works', async () => {
    for (const ignoreAbort of [false, true]) {
      const { root, journal } = eagerTools()
      const controller = new AbortController()
      const { agent, model, session } = agentOn(
        root,
        [
          async (s) => {
            s.call(callOf('a', 'par'))
            s.call(callOf('x', 'ex'))
            await new Promise(() => undefined) // never finishes: only the abort ends it
          },
        ],
        { ignoreAbort },
      )
      const running = agent.run('go', { signal: controller.signal })
      await settleAll()
      expect(journal).toEqual(['policy:a', 'start:a'])
      controller.abort()
      expect(await running).toMatchObject({ reason: 'aborted', steps: 1 })
      expect(model.streams[0]!.left).toBe(true)
      const log = session.events()
      expect(shape(log)).toEqual([
        'turn/start',
        'user/message user',
        'assistant/message',
        'tool/call a',
        'tool/result a',
        'tool/call x',
        'tool/result x',
        'turn/end aborted',
      ])
      expect((log[2]!.data as { finishReason: string }).finishReason).toBe('other')
      expect(resultCodes(log)).toEqual({ a: 'ABORTED', x: 'ABORTED_BEFORE_DISPATCH' })
      expectReplayable(log)
      const resumed = await agent.resume()
      expect(resumed).toMatchObject({ turn: 1, reason: 'aborted' })
      agent.dispose()
    }
  })

  it('T40: finish reason "length" after calls started: the cut-off call is in the message and answered, started calls are aborted, the turn ends TRUNCATED_RESPONSE; resume works', async () => {
    const { root, journal } = eagerTools()
    const gate = deferred()
    const cut = { type: 'tool-call' as const, id: 'cut', name: 'par', arguments: '{"key": "half' }
    const { agent, model, session } = agentOn(root, [
      async (s) => {
        s.call(callOf('a', 'par'))
        s.call(cut)
        await gate.promise
        s.finish({ finishReason: 'length' })
      },
    ])
    const running = agent.run('go').catch((e: unknown) => e)
    await settleAll()
    // the cut-off call's arguments do not parse, so its mode cannot be read: it is exclusive (T21)
    // and waits for the end of the stream, which aborts the step
    expect(journal).toEqual(['policy:a', 'start:a'])
    gate.resolve()
    const error = await running
    expect(AgentLoopError.isInstance(error) && error.code).toBe('TRUNCATED_RESPONSE')
    expect((error as Error).message).toMatch(/cut off \(finish reason "length"\) after 2 tool call\(s\)/)
    const log = session.events()
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call a',
      'tool/result a',
      'tool/call cut',
      'tool/result cut',
      'turn/end error',
    ])
    expect(log[2]!.data).toMatchObject({
      finishReason: 'length',
      message: { content: [callOf('a', 'par'), cut] },
    })
    expect(resultCodes(log)).toEqual({ a: 'ABORTED', cut: 'ABORTED_BEFORE_DISPATCH' })
    expectReplayable(log)
    expect(model.streams).toHaveLength(1)
    expect(await agent.resume()).toMatchObject({ turn: 1, reason: 'error' })
    agent.dispose()
  })

  it('T40: "length" before anything started: the cut-off exclusive call is answered ABORTED_BEFORE_DISPATCH', async () => {
    const { root, journal } = eagerTools()
    const { agent, session } = agentOn(root, [
      (s) => {
        s.call({ type: 'tool-call', id: 'cut', name: 'ex', arguments: '{"ke' })
        s.finish({ finishReason: 'length' })
      },
    ])
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('TRUNCATED_RESPONSE')
    expect(journal).toEqual([])
    expect(resultCodes(session.events())).toEqual({ cut: 'ABORTED_BEFORE_DISPATCH' })
    expectReplayable(session.events())
    agent.dispose()
  })

  it('T40: "length" without a tool call ends the step as before (the turn completes)', async () => {
    const { root } = eagerTools()
    const { agent } = agentOn(root, [
      (s) => {
        s.text('a long answ')
        s.finish({ finishReason: 'length' })
      },
    ])
    expect(await agent.run('go')).toMatchObject({ reason: 'completed', text: 'a long answ' })
    agent.dispose()
  })

  it('T40: eagerToolExecution: false waits for the whole message (model.step); nothing starts during the stream', async () => {
    const { root, journal, par } = eagerTools()
    const gate = deferred()
    const { agent, session } = agentOn(root, [callsUntil(gate, callOf('a', 'par')), (s) => s.finish()], {
      eagerToolExecution: false,
    })
    expect(agent.eagerToolExecution).toBe(false)
    const events: AgentEvent[] = []
    const running = agent.run('go', { onEvent: (e) => events.push(e) })
    await settleAll()
    expect(journal).toEqual([])
    gate.resolve()
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a'])
    par.release('a')
    await running
    expect(of(events, 'tool-call-queued').map((e) => e.eager)).toEqual([false])
    expect(of(events, 'tool-call-start').map((e) => e.duringStream)).toEqual([false])
    expect(of(events, 'step-end').map((e) => e.eager)).toEqual([undefined, undefined])
    // the plain path cites the message too
    const log = session.events()
    expect(log[3]!.sourceEventSeqs).toEqual([log[2]!.seq])
    expectReplayable(log)
    agent.dispose()
  })

  it('T40: a model without stream runs its steps with model.step', async () => {
    const { root, par } = eagerTools()
    const scripted = createScriptedModel({ turns: [[callOf('a', 'par')], [textBlock('ok')]] })
    const model: LanguageModel = { provider: 'plain', modelId: 'plain', step: (r) => scripted.step(r) }
    const session = createMemorySession()
    const agent = createAgent({ ctx: root, name: 'plain', model, session })
    const events: AgentEvent[] = []
    const running = agent.run('go', { onEvent: (e) => events.push(e) })
    await settleAll()
    par.release('a')
    expect(await running).toMatchObject({ reason: 'completed', text: 'ok' })
    expect(of(events, 'tool-call-queued').map((e) => e.eager)).toEqual([false])
    expectReplayable(session.events())
    agent.dispose()
  })

  it('T40: createAgent checks eagerToolExecution', () => {
    const { root } = eagerTools()
    const model = createScriptedModel({ turns: [] })
    expect(() =>
      createAgent({
        ctx: root,
        name: 'x',
        model,
        session: createMemorySession(),
        eagerToolExecution: 'yes' as never,
      }),
    ).toThrow(/options\.eagerToolExecution must be a boolean, got the string "yes"/)
  })

  it('T40: a stream that breaks its contract ends as INVALID_MODEL_RESPONSE with its complete calls answered', async () => {
    const cases: {
      readonly name: string
      readonly script: (s: Parameters<Parameters<typeof agentOn>[1][number]>[0]) => void
      readonly message: RegExp
    }[] = [
      {
        name: 'no finish',
        script: (s) => {
          s.call(callOf('a', 'par'))
          s.end()
        },
        message: /no finish part before the stream ended/,
      },
      {
        name: 'a finish message without the yielded call',
        script: (s) => {
          s.call(callOf('a', 'par'))
          s.finish({ calls: [callOf('other', 'par')] })
        },
        message: /the finish message must hold the yielded calls, in order/,
      },
      {
        name: 'a malformed part',
        script: (s) => {
          s.call(callOf('a', 'par'))
          s.raw({
            type: 'tool-call',
            call: { type: 'tool-call', id: 'b', name: 'par', arguments: { key: 1 } },
          })
        },
        message: /a tool-call part with arguments .* \(not a string\)/,
      },
    ]
    for (const { name, script, message } of cases) {
      const { root, par } = eagerTools()
      const { agent, session } = agentOn(root, [script])
      const running = agent.run('go').catch((e: unknown) => e)
      await settleAll()
      par.release('a')
      const error = await running
      expect(AgentLoopError.isInstance(error) && error.code, name).toBe('INVALID_MODEL_RESPONSE')
      expect((error as Error).message, name).toMatch(message)
      const codes = resultCodes(session.events())
      expect(Object.keys(codes), name).toEqual(['a'])
      expectReplayable(session.events())
      agent.dispose()
    }
  })

  it('T40: a stream that fails before any call is complete records nothing of the step, as a failed step would', async () => {
    const { root } = eagerTools()
    const { agent, session } = agentOn(root, [
      (s) => {
        s.text('half a sen')
        s.fail(new Error('reset'))
      },
    ])
    await expect(agent.run('go')).rejects.toThrow('reset')
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
    agent.dispose()
  })

  it('T40: extra calls the finish message holds beyond the yielded ones are run too, after them', async () => {
    const { root, par } = eagerTools()
    const { agent, session } = agentOn(root, [
      (s) => {
        s.call(callOf('a', 'par'))
        s.finish({ calls: [callOf('a', 'par'), callOf('b', 'par')] })
      },
      (s) => s.finish(),
    ])
    const running = agent.run('go')
    await settleAll()
    par.release('a')
    par.release('b')
    await running
    expect(resultCodes(session.events())).toEqual({ a: 'OK', b: 'OK' })
    expectReplayable(session.events())
    agent.dispose()
  })

  it('T40: a session that refuses the assistant message records nothing of the step; started calls are stopped', async () => {
    const { root, journal } = eagerTools()
    const session = sessionRefusingMessages()
    const { agent } = agentOn(
      root,
      [
        async (s) => {
          s.call(callOf('a', 'par'))
          while (!journal.includes('start:a')) await settleAll(1)
          s.finish()
        },
      ],
      { session },
    )
    const error = await agent.run('go').catch((e: unknown) => e)
    expect((error as Error).message).toBe('disk full')
    expect(journal).toEqual(['policy:a', 'start:a', 'end:a'])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
    agent.dispose()
  })

  it('T40: the calls of a step whose assistant message the session refused end as aborted, never as a scheduler failure, each with its tool-call-end', async () => {
    const { root, journal } = eagerTools()
    const session = sessionRefusingMessages()
    const observed: string[] = []
    root.on('tools/result', (result, info) => {
      observed.push(`${info.callId} ${result.isError ? result.error.info?.code : 'OK'}`)
    })
    const { agent } = agentOn(
      root,
      [
        async (s) => {
          s.call(callOf('a', 'par'))
          // an exclusive call waits for the end of the stream: it never starts here
          s.call(callOf('b', 'ex'))
          while (!journal.includes('start:a')) await settleAll(1)
          s.finish()
        },
      ],
      { session },
    )
    const events: AgentEvent[] = []
    const error = await agent.run('go', { onEvent: (e) => events.push(e) }).catch((e: unknown) => e)
    expect((error as Error).message).toBe('disk full')
    expect(observed).toEqual(['a ABORTED', 'b ABORTED_BEFORE_DISPATCH'])
    expect(
      of(events, 'tool-call-end').map((e) => [
        e.callId,
        e.started,
        e.result.isError ? e.result.error.info?.code : 'OK',
      ]),
    ).toEqual([
      ['a', true, 'ABORTED'],
      ['b', false, 'ABORTED_BEFORE_DISPATCH'],
    ])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
    agent.dispose()
  })

  it('T23/T40: maxParallelToolCalls bounds a streamed step: with 1, the next parallel call waits for a free slot', async () => {
    const { root, journal, par } = eagerTools()
    const { agent } = agentOn(
      root,
      [
        (s) => {
          s.call(callOf('a', 'par'))
          s.call(callOf('b', 'par'))
          s.finish()
        },
        saysDone,
      ],
      { config: { maxParallelToolCalls: 1 } },
    )
    const running = agent.run('go')
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a'])
    par.release('a')
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'end:a', 'policy:b', 'start:b'])
    par.release('b')
    expect(await running).toMatchObject({ reason: 'completed', steps: 2 })
    agent.dispose()
  })

  it('T40: notEager copies a definition with eager: false, which registration keeps', () => {
    const { root } = eagerTools()
    expect((root.tools.get('lazy') as { eager?: unknown }).eager).toBe(false)
    expect((root.tools.get('par') as { eager?: unknown }).eager).toBeUndefined()
    expect(notEager(root.tools.get('par')!)).not.toBe(root.tools.get('par'))
  })
})
