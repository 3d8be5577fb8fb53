import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  toolCallBlock,
  type AssistantContent,
  type Message,
  type ScriptedTurn,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  openJsonlSession,
  readJsonlSession,
  verifyToolPairs,
  type AnySession,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { RUN_CODE_TOOL_NAME, defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import {
  AgentLoopError,
  createAgent,
  executeToolCalls,
  historyFromSession,
  resolveAgentLoopConfig,
  resumeAgent,
} from '@deepseek-ai/dsh-agent-loop'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { registerBasicTools } from './support/agents.ts'
import { asyncStore } from './support/async-store.ts'
import { gatedTool, quiesce, type Journal } from './support/fixtures.ts'
import { wireIds, wireProblems } from './support/wire-ids.ts'

// Models reuse call ids: some number them per message (`call_0`, `call_1`, … again in every step),
// some repeat an id outright. The provider pairs ids within one request's history, so what it sent
// must come back as it sent it; the session pairs them across the whole log, so every call the
// loop records gets an id unique in the session, with the model's own kept beside it.

const tempDir = useTempDirs('dsh-call-ids-')

const echo = (id: string, text: string): ToolCallBlock => toolCallBlock({ id, name: 'echo', args: { text } })
const runCode = (id: string, code: string): ToolCallBlock =>
  toolCallBlock({ id, name: RUN_CODE_TOOL_NAME, args: { code, description: 'a program' } })

interface Recorded {
  readonly callId: string
  readonly modelCallId: string | undefined
  readonly parentCallId: string | undefined
}

/** The loop's `tool/call` records: the id it paired under, the model's (when another), the parent. */
function calls(events: readonly SessionEvent[]): Recorded[] {
  return events.flatMap((event) => {
    if (event.type !== 'tool/call') return []
    const data = event.data as { callId: string; modelCallId?: string; parentCallId?: string }
    return [{ callId: data.callId, modelCallId: data.modelCallId, parentCallId: data.parentCallId }]
  })
}

/** The callId each `tool/result` answers, in log order. */
function answered(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === 'tool/result'
      ? [(event.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId]
      : [],
  )
}

/** Every log the loop writes verifies, and every history it builds is valid for a provider. */
function expectHealthy(
  session: AnySession,
  model?: { requests: readonly { messages: readonly Message[] }[] },
) {
  const events = session.events()
  expect(verifyToolPairs(events).problems).toEqual([])
  expect(wireProblems(historyFromSession(events))).toEqual([])
  for (const request of model?.requests ?? []) expect(wireProblems(request.messages)).toEqual([])
}

function agentOn(
  turns: readonly ScriptedTurn[],
  options: { eager?: boolean; session?: AnySession; root?: Context } = {},
) {
  const root = options.root ?? createContext({ logger: createMemoryLogger() })
  if (options.root === undefined) {
    installTools(root)
    registerBasicTools(root)
  }
  const session = options.session ?? createMemorySession()
  const model = createScriptedModel({ turns })
  const agent = createAgent({
    ctx: root,
    name: 'ids',
    model,
    session,
    ...(options.eager === undefined ? {} : { eagerToolExecution: options.eager }),
  })
  return { root, session, model, agent }
}

/** A harness's scope over a fresh memory session, with the basic tools, as a harness calling `executeToolCalls` sets it up. */
function harnessScope() {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  registerBasicTools(root)
  const session = createMemorySession()
  const ctx = root.createScope({ name: 'harness' })
  ctx.provide('agentLoop', { config: resolveAgentLoopConfig(), session })
  return { session, ctx }
}

describe('call ids unique in the session, the model’s own on the wire (T28–T30)', () => {
  for (const eager of [false, true]) {
    const how = eager ? 'streamed (eager dispatch)' : 'model.step'
    it(`T28/T30: a model id reused in a later step is recorded under an id unique in the session; the log verifies (${how})`, async () => {
      const { session, model, agent } = agentOn(
        [
          [echo('d', 'one')],
          [echo('d', 'two')],
          [echo('d', 'three'), echo('e', 'four')],
          [textBlock('done')],
        ],
        { eager },
      )
      expect(await agent.run('go')).toMatchObject({ reason: 'completed', steps: 4 })
      const events = session.events()
      expect(calls(events)).toEqual([
        { callId: 'd', modelCallId: undefined, parentCallId: undefined },
        { callId: 'd#2', modelCallId: 'd', parentCallId: undefined },
        { callId: 'd#3', modelCallId: 'd', parentCallId: undefined },
        { callId: 'e', modelCallId: undefined, parentCallId: undefined },
      ])
      expect(answered(events)).toEqual(['d', 'd#2', 'd#3', 'e'])
      expectHealthy(session, model)
    })

    it(`T29: the provider gets back the ids it sent, in the assistant and the tool messages (${how})`, async () => {
      const { session, model, agent } = agentOn(
        [[echo('d', 'one')], [echo('d', 'two')], [textBlock('done')]],
        {
          eager,
        },
      )
      await agent.run('go')
      const last = model.requests.at(-1)!.messages
      expect(wireIds(last)).toEqual({ calls: ['d', 'd'], answers: ['d', 'd'] })
      expect(last.filter((m) => m.role === 'tool').map((m) => m.content[0])).toEqual([
        expect.objectContaining({ callId: 'd', content: [{ type: 'text', text: 'one' }] }),
        expect.objectContaining({ callId: 'd', content: [{ type: 'text', text: 'two' }] }),
      ])
      // the history the loop rebuilds from the log is that request's, then the final answer
      expect(historyFromSession(session.events()).slice(0, -1)).toEqual(last)
    })
  }

  it('T28/T30: over an asynchronous session (a database store), a reused id is renamed the same way', async () => {
    const store = asyncStore()
    const { model, agent } = agentOn([[echo('d', 'one')], [echo('d', 'two')], [textBlock('done')]], {
      session: store.session,
    })
    await agent.run('go')
    expect(calls(store.session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['d', undefined],
      ['d#2', 'd'],
    ])
    expectHealthy(store.session, model)
  })

  it('T28/T30: ids reused across turns, and a model id that equals an id the loop gave (d#2), stay unique', async () => {
    const { session, model, agent } = agentOn([
      [echo('d', 'one')],
      [textBlock('ok')],
      [echo('d', 'two'), echo('d#2', 'three')],
      [textBlock('ok')],
    ])
    await agent.run('first')
    await agent.run('second')
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['d', undefined],
      ['d#2', 'd'],
      ['d#2#2', 'd#2'],
    ])
    expect(wireIds(model.requests.at(-1)!.messages)).toEqual({
      calls: ['d', 'd', 'd#2'],
      answers: ['d', 'd', 'd#2'],
    })
    expectHealthy(session, model)
  })

  it('T28: a harness that calls executeToolCalls step by step with repeated ids gets the same: each tool/call cites its message, the log verifies', async () => {
    const { session, ctx } = harnessScope()
    const sources: string[] = []
    for (const step of [1, 2]) {
      const message = session.append('assistant/message', {
        turn: 1,
        step,
        message: { role: 'assistant', content: [echo('call_0', `s${step}`)] },
      })
      await executeToolCalls({
        ctx,
        turn: 1,
        step,
        toolCalls: [echo('call_0', `s${step}`)],
        messageSeq: message.seq,
        acceptContext: (_text, source) => void sources.push(source.callId),
      })
    }
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['call_0', undefined],
      ['call_0#2', 'call_0'],
    ])
    expect(verifyToolPairs(session.events()).problems).toEqual([])
  })

  it('T28/T30: executeToolCalls with a reused id and, later in the same step, the id the loop gives it (d, then d#2): every id stays unique, the log verifies', async () => {
    const { session, ctx } = harnessScope()
    const steps = [[echo('d', 'a')], [echo('d', 'b'), echo('d#2', 'c'), echo('e', 'd')]]
    for (const [i, toolCalls] of steps.entries())
      await executeToolCalls({ ctx, turn: 1, step: i + 1, toolCalls, acceptContext: () => {} })
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['d', undefined],
      ['d#2', 'd'],
      ['d#2#2', 'd#2'],
      ['e', undefined],
    ])
    expect(verifyToolPairs(session.events()).problems).toEqual([])
  })

  it('T30: two calls with one id in ONE assistant message are refused before anything of the step is recorded (model.step)', async () => {
    const { session, agent } = agentOn([[echo('d', 'one'), echo('d', 'two')]], { eager: false })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('INVALID_MODEL_RESPONSE')
    expect((error as Error).message).toMatch(
      /message\.content\[1\]\.id the string "d": tool-call ids must be non-empty and unique in a step/,
    )
    expect(session.events().map((e) => e.type)).toEqual(['turn/start', 'user/message', 'turn/end'])
    expectHealthy(session)
  })

  it('T30/T40: a streamed message repeating an id ends the stream at the repeat: the calls before it are recorded and answered, the log verifies', async () => {
    const { session, agent } = agentOn([[echo('d', 'one'), echo('e', 'two'), echo('d', 'three')]], {
      eager: true,
    })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('INVALID_MODEL_RESPONSE')
    expect(calls(session.events()).map((c) => c.callId)).toEqual(['d', 'e'])
    const message = session.events().find((e) => e.type === 'assistant/message')!
    expect(
      (message.data as unknown as { message: { content: AssistantContent[] } }).message.content.flatMap(
        (b) => (b.type === 'tool-call' ? [b.id] : []),
      ),
    ).toEqual(['d', 'e'])
    expectHealthy(session)
  })
})

describe('call ids in Code Mode (T28–T30, T33)', () => {
  /** `both` presentation: the model may call run_code and the tools directly. */
  function codeAgent(turns: readonly ScriptedTurn[], session: AnySession = createMemorySession()) {
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root, { defaultPresentation: 'both' })
    registerBasicTools(root)
    root.provide('codeRuntime', createFakeCodeRuntime())
    installCodeMode(root)
    return agentOn(turns, { root, session })
  }
  const program = "return await tools.echo({ text: 'nested' })"

  it('T33/T30: a run_code id repeated in a later step gets an id of its own, and so do its nested calls', async () => {
    const { session, model, agent } = codeAgent([
      [runCode('X', program)],
      [runCode('X', program)],
      [textBlock('done')],
    ])
    await agent.run('go')
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId, c.parentCallId])).toEqual([
      ['X', undefined, undefined],
      ['X:code:0', undefined, 'X'],
      ['X#2', 'X', undefined],
      ['X#2:code:0', undefined, 'X#2'],
    ])
    expect(wireIds(model.requests.at(-1)!.messages)).toEqual({ calls: ['X', 'X'], answers: ['X', 'X'] })
    expectHealthy(session, model)
  })

  it('T33/T30: a model id equal to a nested id already in the session (X:code:0) is recorded under another id; its result reaches the model', async () => {
    const { session, model, agent } = codeAgent([
      [runCode('X', program)],
      [echo('X:code:0', 'plain')],
      [textBlock('done')],
    ])
    await agent.run('go')
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId, c.parentCallId])).toEqual([
      ['X', undefined, undefined],
      ['X:code:0', undefined, 'X'],
      ['X:code:0#2', 'X:code:0', undefined],
    ])
    // the plain call's result is the model's, not a nested one: the history keeps it
    const last = model.requests.at(-1)!.messages
    expect(wireIds(last)).toEqual({ calls: ['X', 'X:code:0'], answers: ['X', 'X:code:0'] })
    expect(last.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ callId: 'X:code:0', content: [{ text: 'plain' }] }],
    })
    expectHealthy(session, model)
  })

  it('T33/T30: a plain call whose id is a nested id of a run_code in the same step, before or after it, never collides', async () => {
    for (const order of ['plain first', 'run_code first'] as const) {
      const plain = echo('Y:code:0', 'plain')
      const code = runCode('Y', program)
      const { session, model, agent } = codeAgent([
        order === 'plain first' ? [plain, code] : [code, plain],
        [textBlock('done')],
      ])
      await agent.run('go')
      const ids = calls(session.events()).map((c) => c.callId)
      expect(new Set(ids).size).toBe(ids.length)
      expect(wireIds(model.requests.at(-1)!.messages).answers.sort()).toEqual(['Y', 'Y:code:0'])
      expectHealthy(session, model)
    }
  })
})

describe('call ids across a resume (T28–T30)', () => {
  it('T30: a renamed call left unanswered by a stopped process is answered INTERRUPTED under its own id; the model gets its id back', async () => {
    const path = join(tempDir(), 'session.jsonl')
    const journal: Journal = []
    const first = agentOn(
      [[echo('d', 'one')], [toolCallBlock({ id: 'd', name: 'hang', args: { key: null } })]],
      {
        session: openJsonlSession(path, { durability: 'write' }),
      },
    )
    first.root.tools.register(gatedTool({ name: 'hang', journal }).definition)
    void first.agent.run('go').catch(() => {})
    while (journal.length === 0) await quiesce()
    ;(first.session as Session).close() // the process stops here
    expect(calls(readJsonlSession(path).events).map((c) => c.callId)).toEqual(['d', 'd#2'])

    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    registerBasicTools(root)
    const model = createScriptedModel({ turns: [[textBlock('recovered')]] })
    const session = openJsonlSession(path, { durability: 'write' })
    const { result } = await resumeAgent({ ctx: root, name: 'ids', model, session })
    expect(result).toMatchObject({ reason: 'completed', text: 'recovered' })
    expect(answered(session.events())).toEqual(['d', 'd#2'])
    expect(wireIds(model.requests[0]!.messages)).toEqual({ calls: ['d', 'd'], answers: ['d', 'd'] })
    expectHealthy(session, model)
    session.close()
  })

  it('T30: calls of a recorded message the process never recorded are recorded by resume under unique ids, their model ids kept', async () => {
    const path = join(tempDir(), 'session.jsonl')
    const inner = openJsonlSession(path, { durability: 'write' })
    let calls2 = 0
    // a session that "stops the process" at the first tool/call of step 2: nothing after it is written
    const dying = Object.create(inner) as Session
    Object.defineProperty(dying, 'append', {
      value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
        if (type === 'tool/call' && (data as { step: number }).step === 2 && ++calls2 === 1) {
          inner.close()
          throw new Error('the process stopped')
        }
        return inner.append(type, data, options)
      },
    })
    const first = agentOn([[echo('d', 'one')], [echo('d', 'two'), echo('e', 'three')]], {
      session: dying,
      eager: false,
    })
    await first.agent.run('go').catch(() => {})
    expect(calls(readJsonlSession(path).events).map((c) => c.callId)).toEqual(['d'])

    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    registerBasicTools(root)
    const model = createScriptedModel({ turns: [[textBlock('recovered')]] })
    const session = openJsonlSession(path, { durability: 'write' })
    await resumeAgent({ ctx: root, name: 'ids', model, session })
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['d', undefined],
      ['d#2', 'd'],
      ['e', undefined],
    ])
    expect(wireIds(model.requests[0]!.messages)).toEqual({ calls: ['d', 'd', 'e'], answers: ['d', 'd', 'e'] })
    expectHealthy(session, model)
    session.close()
  })

  it('T30: a durable approval pending on a renamed call is answered by its session id and the step goes on', async () => {
    const session = createMemorySession()
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    registerBasicTools(root)
    const runs: string[] = []
    root.tools.register(
      defineTool({
        name: 'deploy',
        description: 'Deploy.',
        parameters: z.object({ env: z.string() }),
        execute: ({ env }) => {
          runs.push(env)
          return `deployed ${env}`
        },
      }),
    )
    root.on('tools/pre-execute', (call, next) => (call.toolName === 'deploy' ? { type: 'ask' } : next()))
    root.provide('approval', { request: async () => ({ type: 'pending' }) })
    const deploy = toolCallBlock({ id: 'd', name: 'deploy', args: { env: 'prod' } })
    const { agent, model } = agentOn(
      [[echo('d', 'one')], [deploy, echo('e', 'after')], [textBlock('done')]],
      {
        root,
        session,
      },
    )
    const paused = await agent.run('go')
    expect(paused).toMatchObject({ reason: 'paused', pendingApproval: { callId: 'd#2', name: 'deploy' } })
    expectHealthy(session)
    const resumed = await agent.resume({ approval: { callId: 'd#2', answer: 'once' } })
    expect(resumed).toMatchObject({ reason: 'completed' })
    expect(runs).toEqual(['prod'])
    expect(calls(session.events()).map((c) => [c.callId, c.modelCallId])).toEqual([
      ['d', undefined],
      ['d#2', 'd'],
      ['e', undefined],
    ])
    expect(wireIds(model.requests.at(-1)!.messages)).toEqual({
      calls: ['d', 'd', 'e'],
      answers: ['d', 'd', 'e'],
    })
    expectHealthy(session, model)
  })
})

describe('any sequence of steps with repeated ids (fast-check)', () => {
  // ids from a small alphabet, including shapes the loop itself produces (d#2) and derived nested ids
  const ID = fc.constantFrom('d', 'e', 'call_0', 'd#2', 'X', 'X:code:0', 'X:code:1', 'X#2:code:0')
  const callArb = fc.record({ id: ID, code: fc.boolean() })
  // one message's calls, ids unique within it (a repeat within one message is refused, tested above)
  const stepArb = fc.uniqueArray(callArb, { minLength: 1, maxLength: 3, selector: (c) => c.id })

  it('T28–T30/T33: every log the loop writes verifies, ids are unique in the session, and the provider always sees its own ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (steps, eager) => {
          const root = createContext({ logger: createMemoryLogger() })
          installTools(root, { defaultPresentation: 'both' })
          registerBasicTools(root)
          root.provide('codeRuntime', createFakeCodeRuntime())
          installCodeMode(root)
          const turns: ScriptedTurn[] = steps.map((step, s) =>
            step.map((c, i) =>
              c.code
                ? runCode(c.id, "await tools.echo({ text: 'a' }); return await tools.echo({ text: 'b' })")
                : echo(c.id, `${s}.${i}`),
            ),
          )
          turns.push([textBlock('done')])
          const { session, model, agent } = agentOn(turns, { root, eager })
          expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
          const events = session.events()
          const recorded = calls(events)
          expect(new Set(recorded.map((c) => c.callId)).size).toBe(recorded.length)
          expectHealthy(session, model)
          // the model's ids, in the order it wrote them, are exactly what it reads back
          const written = steps.flat().map((c) => c.id)
          expect(wireIds(model.requests.at(-1)!.messages)).toEqual({ calls: written, answers: written })
          // each top-level call is recorded with the model's id beside it, when the loop gave another
          expect(
            recorded.filter((c) => c.parentCallId === undefined).map((c) => c.modelCallId ?? c.callId),
          ).toEqual(written)
        },
      ),
      { numRuns: 60 },
    )
  }, 60_000)
})
