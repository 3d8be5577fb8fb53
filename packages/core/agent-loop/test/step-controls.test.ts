import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  toolCallBlock,
  type ScriptedTurn,
  type ToolChoice,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import {
  createAgent,
  hasToolCall,
  stepCountIs,
  type AgentEvent,
  type CreateAgentOptions,
  type StepPreparation,
  type StopCondition,
} from '@deepseek-ai/dsh-agent-loop'

/** A root with three tools (`read`, `write`, `search`); `ran` lists the bodies that ran. */
function rootWithTools(): { root: Context; ran: string[] } {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const ran: string[] = []
  for (const name of ['read', 'write', 'search']) {
    root.tools.register(
      defineTool({
        name,
        description: `${name} something`,
        parameters: z.object({ path: z.string() }),
        isConcurrencySafe: () => true,
        execute: ({ path }) => {
          ran.push(`${name} ${path}`)
          return `${name}: ${path}`
        },
      }),
    )
  }
  return { root, ran }
}

const call = (id: string, name: string, path = 'a.ts') => toolCallBlock({ id, name, args: { path } })

function agentOn(
  turns: readonly ScriptedTurn[],
  options: Partial<Omit<CreateAgentOptions<Session>, 'ctx' | 'session' | 'model' | 'name'>> & {
    modelOptions?: { toolChoice?: boolean }
  } = {},
) {
  const { root, ran } = rootWithTools()
  const session = createMemorySession()
  const model = createScriptedModel({ turns, ...options.modelOptions })
  const { modelOptions: _drop, ...rest } = options
  void _drop
  const agent = createAgent({ ctx: root, name: 'helper', model, session, ...rest })
  const events: AgentEvent[] = []
  return { root, ran, session, model, agent, events, onEvent: (e: AgentEvent) => void events.push(e) }
}

const ofType = (events: readonly { type: string }[], type: string) => events.filter((e) => e.type === type)

describe('prepareStep', () => {
  it('T43: each step gets what prepareStep chose for it: tools subset, toolChoice, system, providerOptions; recorded as step/prepare', async () => {
    const seen: { step: number; tools: readonly string[]; history: number }[] = []
    const { agent, model, session, events, onEvent } = agentOn(
      [[call('c1', 'read')], [call('c2', 'write')], [textBlock('done')]],
      {
        system: 'Base.',
        prepareStep: ({ step, tools, history }): StepPreparation | undefined => {
          seen.push({ step, tools, history: history.length })
          if (step === 1) return { tools: ['read'], toolChoice: 'required', system: 'Read first.' }
          if (step === 2)
            return {
              toolChoice: { type: 'tool', name: 'write' },
              providerOptions: { scripted: { temperature: 0 } },
            }
          return undefined
        },
      },
    )
    const result = await agent.run('go', { onEvent })
    expect(result).toMatchObject({ reason: 'completed', steps: 3 })
    expect(seen).toEqual([
      { step: 1, tools: ['read', 'write', 'search'], history: 1 },
      { step: 2, tools: ['read', 'write', 'search'], history: 3 },
      { step: 3, tools: ['read', 'write', 'search'], history: 5 },
    ])
    const [first, second, third] = model.requests
    expect(first!.tools.map((t) => t.name)).toEqual(['read'])
    expect(first).toMatchObject({ system: 'Read first.', toolChoice: 'required' })
    expect(second!.tools.map((t) => t.name)).toEqual(['read', 'write', 'search'])
    expect(second).toMatchObject({
      system: 'Base.',
      toolChoice: { type: 'tool', name: 'write' },
      providerOptions: { scripted: { temperature: 0 } },
    })
    expect(third).not.toHaveProperty('toolChoice')
    const records = session
      .events()
      .filter((e) => e.type === 'step/prepare')
      .map((e) => e.data)
    expect(records).toEqual([
      { turn: 1, step: 1, system: 'Read first.', tools: ['read'], toolChoice: 'required' },
      {
        turn: 1,
        step: 2,
        toolChoice: { type: 'tool', name: 'write' },
        providerOptions: { scripted: { temperature: 0 } },
      },
    ])
    // each record comes before its step's assistant message
    const types = session.events().map((e) => e.type)
    expect(types.indexOf('step/prepare')).toBeLessThan(types.indexOf('assistant/message'))
    expect(ofType(events, 'step-prepared')).toHaveLength(2)
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it('T43: a tool hidden for the step that the model calls anyway is refused with exactly one result; its body never runs', async () => {
    const { agent, ran, session } = agentOn([[call('c1', 'read'), call('c2', 'write')], [textBlock('ok')]], {
      prepareStep: ({ step }) => (step === 1 ? { tools: ['read'] } : undefined),
      eagerToolExecution: false,
    })
    await agent.run('go')
    expect(ran).toEqual(['read a.ts'])
    const results = session.events().filter((e) => e.type === 'tool/result')
    expect(results).toHaveLength(2)
    const refused = results[1]!.data as {
      message: { content: { callId: string; isError: boolean; content: { text: string }[] }[] }
    }
    expect(refused.message.content[0]).toMatchObject({ callId: 'c2', isError: true })
    expect(refused.message.content[0]!.content[0]!.text).toContain('Unknown tool "write"')
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it('T43: the same holds for a streamed step (eager dispatch): the hidden call is refused once, the log verifies', async () => {
    const { agent, ran, session } = agentOn([[call('c1', 'search'), call('c2', 'read')], [textBlock('ok')]], {
      prepareStep: ({ step }) => (step === 1 ? { tools: ['search'] } : undefined),
    })
    await agent.run('go')
    expect(ran).toEqual(['search a.ts'])
    expect(session.events().filter((e) => e.type === 'tool/result')).toHaveLength(2)
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it('T43: prepareStep may change the model for one step; the record names it by provider and modelId', async () => {
    const other = createScriptedModel({
      turns: [[textBlock('from the other model')]],
      provider: 'p2',
      modelId: 'm2',
    })
    const { agent, model, session } = agentOn([[call('c1', 'read')]], {
      prepareStep: ({ step }) => (step === 2 ? { model: other } : undefined),
    })
    const result = await agent.run('go')
    expect(result.text).toBe('from the other model')
    expect(model.requests).toHaveLength(1)
    expect(other.requests).toHaveLength(1)
    expect(session.events().find((e) => e.type === 'step/prepare')!.data).toEqual({
      turn: 1,
      step: 2,
      model: { provider: 'p2', modelId: 'm2' },
    })
  })

  it('T43: a tool the scope cannot offer, run_code, an unknown field, a toolChoice naming a hidden tool, or a throw end the turn with INVALID_STEP_PREPARATION', async () => {
    const cases: [StepPreparation | (() => never), string][] = [
      [
        { tools: ['rm'] },
        'names "rm", which this step cannot offer (the agent\'s scope sees: read, write, search)',
      ],
      [{ tools: ['run_code'] }, 'the Code Mode transport'],
      [
        { tools: ['read'], toolChoice: { type: 'tool', name: 'write' } },
        'names the tool "write", which is not offered (offered: read)',
      ],
      [{ toolChoice: 'sometimes' as ToolChoice }, "toolChoice must be 'auto', 'none', 'required'"],
      [{ tools: [], toolChoice: 'required' }, '"required" needs at least one tool offered'],
      [{ temperature: 0 } as StepPreparation, 'unknown field(s) "temperature"'],
      [
        () => {
          throw new Error('boom')
        },
        'prepareStep threw: boom',
      ],
    ]
    for (const [answer, message] of cases) {
      const { agent, model, session } = agentOn([[textBlock('never')]], {
        prepareStep: typeof answer === 'function' ? answer : () => answer,
      })
      const error = await agent.run('go').catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'INVALID_STEP_PREPARATION' })
      expect((error as Error).message).toContain(message)
      expect(model.requests).toHaveLength(0)
      expect(session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'error' } })
      expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
    }
  })

  it('T44: a model that cannot honour the step toolChoice fails the turn with an error naming the choice', async () => {
    const { agent } = agentOn([[call('c1', 'read')]], {
      prepareStep: () => ({ toolChoice: 'required' }),
      modelOptions: { toolChoice: false },
    })
    await expect(agent.run('go')).rejects.toMatchObject({
      code: 'UNSUPPORTED_TOOL_CHOICE',
      message: expect.stringContaining('cannot honour toolChoice "required"'),
    })
  })

  it('T43: a step paused at an approval continues on resume under its recorded tools, without asking prepareStep again', async () => {
    const session = createMemorySession()
    let asked = 0
    const start = (turns: readonly ScriptedTurn[]) => {
      const { root, ran } = rootWithTools()
      root.on('tools/pre-execute', (c, next) =>
        c.toolName === 'read' ? { type: 'ask', reason: 'check' } : next(),
      )
      root.provide('approval', { request: async () => ({ type: 'pending' }) })
      const agent = createAgent({
        ctx: root,
        name: 'helper',
        model: createScriptedModel({ turns }),
        session,
        eagerToolExecution: false,
        prepareStep: ({ step }) => {
          asked++
          return step === 1 ? { tools: ['read'] } : undefined
        },
      })
      return { agent, ran }
    }
    const first = start([[call('c1', 'read'), call('c2', 'write')]])
    const paused = await first.agent.run('go')
    expect(paused.reason).toBe('paused')
    expect(asked).toBe(1)
    // another process: the hidden `write` must still be refused in the continued step
    const second = start([[textBlock('done')]])
    const events: AgentEvent[] = []
    const resumed = await second.agent.resume({
      approval: { callId: 'c1', answer: 'once' },
      onEvent: (e) => void events.push(e),
    })
    expect(resumed).toMatchObject({ reason: 'completed', steps: 2 })
    expect(asked).toBe(2) // once for step 1 (first process), once for the new step 2 only
    expect(second.ran).toEqual(['read a.ts'])
    expect(ofType(events, 'step-prepared')[0]).toMatchObject({
      step: 1,
      fromRecord: true,
      prepared: { tools: ['read'] },
    })
    const write = session
      .events()
      .filter((e) => e.type === 'tool/result')
      .at(-1)!.data as {
      message: { content: { callId: string; content: { text: string }[] }[] }
    }
    expect(write.message.content[0]).toMatchObject({ callId: 'c2' })
    expect(write.message.content[0]!.content[0]!.text).toContain('Unknown tool "write"')
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })
})

describe('stopWhen', () => {
  const loop = (n: number): ScriptedTurn[] =>
    Array.from({ length: n }, (_, i) => [call(`c${i}`, 'read', `f${i}`)])

  it('T46: stepCountIs(n) ends the turn after n committed steps with reason stopped; turn/end records which condition', async () => {
    const { agent, session, ran } = agentOn(loop(5), { stopWhen: stepCountIs(2) })
    const result = await agent.run('go')
    expect(result).toMatchObject({
      reason: 'stopped',
      steps: 2,
      stoppedBy: { index: 0, name: 'stepCountIs(2)' },
    })
    expect(ran).toEqual(['read f0', 'read f1'])
    expect(session.events().at(-1)).toMatchObject({
      type: 'turn/end',
      data: { turn: 1, reason: 'stopped', steps: 2, stoppedBy: { index: 0, name: 'stepCountIs(2)' } },
    })
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
    // resume of an ended turn returns its result, stoppedBy included
    expect(await agent.resume()).toMatchObject({ reason: 'stopped', stoppedBy: { index: 0 } })
  })

  it('T46: in a list the first condition that answers true wins; hasToolCall(name) stops after the step that called it', async () => {
    const { agent } = agentOn([[call('c1', 'read')], [call('c2', 'search')], [call('c3', 'read')]], {
      stopWhen: [stepCountIs(10), hasToolCall('search'), stepCountIs(2)],
    })
    expect(await agent.run('go')).toMatchObject({
      reason: 'stopped',
      steps: 2,
      stoppedBy: { index: 1, name: 'hasToolCall("search")' },
    })
  })

  it('T46: a custom predicate sees the committed step, its calls and its results; an anonymous one is named by its place', async () => {
    const seen: string[] = []
    const { agent } = agentOn(loop(4), {
      stopWhen: [
        stepCountIs(9),
        // an arrow in an array has no name
        ...[
          (input: Parameters<StopCondition>[0]) => {
            seen.push(
              `${input.steps}:${input.step.toolCalls.map((c) => c.name).join()}:${input.step.results.map((r) => (r.isError ? 'err' : r.content[0]?.type === 'text' ? r.content[0].text : '')).join()}`,
            )
            return input.step.results.some(
              (r) => !r.isError && r.content.some((c) => c.type === 'text' && c.text.includes('f2')),
            )
          },
        ],
      ],
    })
    expect(await agent.run('go')).toMatchObject({
      reason: 'stopped',
      steps: 3,
      stoppedBy: { index: 1, name: 'stopWhen[1]' },
    })
    expect(seen).toEqual(['1:read:read: f0', '2:read:read: f1', '3:read:read: f2'])
  })

  it('T46: a step without tool calls completes the turn as before; conditions are not asked', async () => {
    let asked = 0
    const { agent } = agentOn([[textBlock('hi')]], { stopWhen: () => (asked++, true) })
    expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
    expect(asked).toBe(0)
  })

  it('T46: a condition that throws or answers a non-boolean fails the turn with STOP_CONDITION_FAILED naming it; the log verifies', async () => {
    for (const [condition, message] of [
      [
        () => {
          throw new Error('nope')
        },
        'threw: nope',
      ],
      [() => 'yes' as unknown as boolean, 'not a boolean'],
    ] as const) {
      const { agent, session } = agentOn(loop(2), { stopWhen: condition })
      const error = await agent.run('go').catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'STOP_CONDITION_FAILED' })
      expect((error as Error).message).toContain(message)
      expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
    }
    expect(() => agentOn([], { stopWhen: [stepCountIs(1), 3 as never] })).toThrow(
      'options.stopWhen[1] must be a function',
    )
    expect(() => stepCountIs(0)).toThrow('count must be a positive integer')
    expect(() => hasToolCall('')).toThrow('name must be a non-empty string')
  })

  it('T46: an async condition is awaited', async () => {
    const { agent } = agentOn(loop(3), { stopWhen: async ({ steps }) => steps === 1 })
    expect(await agent.run('go')).toMatchObject({ reason: 'stopped', steps: 1 })
  })
})

describe('tool input streaming', () => {
  it('T45: a streamed call emits tool-input-start, one delta per piece with the text so far, and tool-input-end before it is queued', async () => {
    const args = JSON.stringify({ path: 'src/a.ts' })
    const { agent, events, onEvent, session } = agentOn([
      { content: [call('c1', 'read', 'src/a.ts'), call('c2', 'search', 'x')], toolInputChunkSize: 4 },
      [textBlock('ok')],
    ])
    await agent.run('go', { onEvent })
    const input = events.filter((e) => e.type.startsWith('tool-input-') || e.type === 'tool-call-queued')
    const c1 = input.filter((e) => 'callId' in e && e.callId === 'c1')
    expect(c1[0]).toMatchObject({
      type: 'tool-input-start',
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'read',
      index: 0,
    })
    const deltas = c1.filter((e) => e.type === 'tool-input-delta') as { delta: string; text: string }[]
    expect(deltas.map((d) => d.delta).join('')).toBe(args)
    expect(deltas.map((d) => d.delta.length)).toEqual(deltas.map((_, i) => Math.min(4, args.length - i * 4)))
    expect(deltas.at(-1)!.text).toBe(args)
    expect(c1.at(-2)).toMatchObject({ type: 'tool-input-end', callId: 'c1', text: args, complete: true })
    expect(c1.at(-1)).toMatchObject({ type: 'tool-call-queued', callId: 'c1' })
    expect(input.find((e) => e.type === 'tool-input-start' && e.callId === 'c2')).toMatchObject({ index: 1 })
    // the events are for display: the log holds the calls as before
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it('T45: a stream that fails mid-arguments ends the open input incomplete, and no call starts', async () => {
    const { root, ran } = rootWithTools()
    const session = createMemorySession()
    const model = {
      provider: 'test',
      modelId: 'cut',
      step: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'tool-input-start' as const, id: 'k1', name: 'write' }
        yield { type: 'tool-input-delta' as const, id: 'k1', delta: '{"pa' }
        throw new Error('connection reset')
      },
    }
    const agent = createAgent({ ctx: root, name: 'x', model, session, modelRetry: false })
    const events: AgentEvent[] = []
    await expect(agent.run('go', { onEvent: (e) => void events.push(e) })).rejects.toThrow('connection reset')
    expect(ofType(events, 'tool-input-end')).toEqual([
      expect.objectContaining({ callId: 'k1', text: '{"pa', complete: false }),
    ])
    expect(ran).toEqual([])
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it('T45: a delta for an input that never began, or a second start for one id, is INVALID_MODEL_RESPONSE naming it', async () => {
    const finish = {
      type: 'finish',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
        finishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      },
    }
    for (const [parts, message] of [
      [
        [{ type: 'tool-input-delta', id: 'q', delta: 'x' }],
        'a tool-input-delta part for "q" without its tool-input-start',
      ],
      [
        [
          { type: 'tool-input-start', id: 'q', name: 'read' },
          { type: 'tool-input-start', id: 'q', name: 'read' },
        ],
        'a second tool-input-start for the call "q"',
      ],
      [[{ type: 'tool-input-start', id: 'q', name: '' }], 'a tool-input-start part with name'],
    ] as const) {
      const { root } = rootWithTools()
      const model = {
        provider: 'test',
        modelId: 'bad',
        step: () => Promise.reject(new Error('unused')),
        async *stream() {
          yield* [...parts, finish] as never[]
        },
      }
      const agent = createAgent({
        ctx: root,
        name: 'x',
        model,
        session: createMemorySession(),
        modelRetry: false,
      })
      const error = await agent.run('go').catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'INVALID_MODEL_RESPONSE' })
      expect((error as Error).message).toContain(message)
    }
  })
})
