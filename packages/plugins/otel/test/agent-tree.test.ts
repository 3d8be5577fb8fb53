import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createAgent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { childrenOf, deferred, nanos, parentId, traced, tree } from './helpers.ts'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  parameters: z.object({ word: z.string() }),
  isConcurrencySafe: () => true,
  execute: ({ word }) => `${word}: found`,
})

const twoSteps = () =>
  createScriptedModel({
    provider: 'deepseek',
    modelId: 'deepseek-chat',
    turns: [
      {
        content: [
          toolCallBlock({ id: 'c1', name: 'lookup', args: { word: 'a' } }),
          toolCallBlock({ id: 'c2', name: 'lookup', args: { word: 'b' } }),
        ],
        usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 },
      },
      [toolCallBlock({ id: 'c3', name: 'lookup', args: { word: 'c' } })],
      {
        content: [textBlock('done')],
        usage: { inputTokens: 20, outputTokens: 1, totalTokens: 21, cacheHitInputTokens: 8 },
      },
    ],
  })

describe('span tree of an agent turn', () => {
  it('T23: a turn of three steps: turn > step > (chat, parallel tool calls), each tool span under its own step', async () => {
    const t = traced()
    t.ctx.tools.register(lookup)
    const agent = createAgent({
      ctx: t.ctx,
      name: 'helper',
      model: twoSteps(),
      session: createMemorySession(),
    })
    const result = await agent.run('look up a, b and c', { onEvent: t.otel.traceAgent(agent).onEvent })
    expect(result.reason).toBe('completed')

    expect(tree(t.spans(), [A.DSH_STEP, A.GEN_AI_TOOL_CALL_ID])).toEqual([
      'invoke_agent helper',
      '  step dsh.step=1',
      '    chat deepseek-chat dsh.step=1',
      '    execute_tool lookup dsh.step=1 gen_ai.tool.call.id=c1',
      '    execute_tool lookup dsh.step=1 gen_ai.tool.call.id=c2',
      '  step dsh.step=2',
      '    chat deepseek-chat dsh.step=2',
      '    execute_tool lookup dsh.step=2 gen_ai.tool.call.id=c3',
      '  step dsh.step=3',
      '    chat deepseek-chat dsh.step=3',
    ])
    const spans = t.spans()
    const [turn] = spans.filter((s) => s.name === 'invoke_agent helper')
    expect(turn!.attributes).toMatchObject({
      [A.GEN_AI_OPERATION_NAME]: 'invoke_agent',
      [A.GEN_AI_AGENT_NAME]: 'helper',
      [A.GEN_AI_PROVIDER_NAME]: 'deepseek',
      [A.GEN_AI_REQUEST_MODEL]: 'deepseek-chat',
      [A.DSH_TURN]: 1,
      [A.DSH_TURN_RESUMED]: false,
      [A.DSH_TURN_REASON]: 'completed',
      [A.DSH_TURN_STEPS]: 3,
    })
    // usage summed over the turn: steps 1 and 3 reported theirs, step 2 the scripted estimate
    expect(turn!.attributes[A.GEN_AI_USAGE_INPUT_TOKENS]).toBe(result.usage.inputTokens)
    expect(turn!.attributes[A.GEN_AI_USAGE_OUTPUT_TOKENS]).toBe(result.usage.outputTokens)
    // the turn keeps the breakdown a step reported (step 3's cache hits)
    expect(result.usage.cacheHitInputTokens).toBe(8)
    expect(turn!.attributes[A.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]).toBe(8)
    const chats = spans.filter((s) => s.name === 'chat deepseek-chat')
    expect(chats[0]!.attributes).toMatchObject({
      [A.GEN_AI_OPERATION_NAME]: 'chat',
      [A.GEN_AI_RESPONSE_FINISH_REASONS]: ['tool-calls'],
      [A.GEN_AI_USAGE_INPUT_TOKENS]: 10,
      [A.GEN_AI_USAGE_OUTPUT_TOKENS]: 4,
    })
    expect(chats[2]!.attributes).toMatchObject({
      [A.GEN_AI_RESPONSE_FINISH_REASONS]: ['stop'],
      [A.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 8,
    })
    const steps = spans.filter((s) => s.name === 'step')
    expect(steps.map((s) => s.attributes[A.DSH_STEP_TOOL_CALLS])).toEqual([2, 1, 0])

    // every child lies within its parent, and each step after the one before it
    for (const step of steps) {
      for (const child of childrenOf(spans, step)) {
        expect(nanos(child.startTime)).toBeGreaterThanOrEqual(nanos(step.startTime))
        expect(nanos(child.endTime)).toBeLessThanOrEqual(nanos(step.endTime))
      }
    }
    expect(nanos(steps[1]!.startTime)).toBeGreaterThanOrEqual(nanos(steps[0]!.endTime))
    // one trace for the whole turn
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1)
  })

  it('T23: parallel calls overlap inside their step span', async () => {
    const t = traced()
    const started = [deferred(), deferred()]
    const release = deferred()
    t.ctx.tools.register(
      defineTool({
        name: 'slow',
        description: 'Waits for the test',
        parameters: z.object({ n: z.number() }),
        isConcurrencySafe: () => true,
        execute: async ({ n }) => {
          started[n]!.resolve()
          await release.promise
          return n
        },
      }),
    )
    const model = createScriptedModel({
      turns: [
        [
          toolCallBlock({ id: 'p0', name: 'slow', args: { n: 0 } }),
          toolCallBlock({ id: 'p1', name: 'slow', args: { n: 1 } }),
        ],
        [textBlock('ok')],
      ],
    })
    const agent = createAgent({ ctx: t.ctx, name: 'par', model, session: createMemorySession() })
    const running = agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })
    await Promise.all(started.map((d) => d.promise))
    // both bodies are running now: neither span has ended
    expect(t.spans().filter((s) => s.name === 'execute_tool slow')).toHaveLength(0)
    release.resolve()
    await running
    const calls = t.spans().filter((s) => s.name === 'execute_tool slow')
    expect(calls).toHaveLength(2)
    const [a, b] = calls.sort((x, y) => (nanos(x.startTime) < nanos(y.startTime) ? -1 : 1))
    expect(nanos(b!.startTime)).toBeLessThan(nanos(a!.endTime))
    expect(parentId(a!)).toBe(parentId(b!))
  })

  it('a consumer that reads the event stream late still gets turn > step > tool (spans opened when the first call needs them)', async () => {
    const t = traced()
    t.ctx.tools.register(lookup)
    const agent = createAgent({ ctx: t.ctx, name: 'late', model: twoSteps(), session: createMemorySession() })
    const tracer = t.otel.traceAgent(agent)
    const stream = agent.stream('go')
    // read nothing until the turn is over: every tool call ran before any event was traced
    await stream.result
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    expect(t.spans().filter((s) => s.name.startsWith('execute_tool'))).toHaveLength(3)
    for (const event of events) tracer.onEvent(event)
    expect(tree(t.spans(), [A.DSH_STEP])).toEqual([
      'invoke_agent late',
      '  step dsh.step=1',
      // the model call's span has its real times (from the events), so it comes first
      '    chat deepseek-chat dsh.step=1',
      '    execute_tool lookup dsh.step=1',
      '    execute_tool lookup dsh.step=1',
      '  step dsh.step=2',
      '    chat deepseek-chat dsh.step=2',
      '    execute_tool lookup dsh.step=2',
      '  step dsh.step=3',
      '    chat deepseek-chat dsh.step=3',
    ])
  })

  it('a failing model ends its chat span and the turn span with status ERROR and error.type', async () => {
    const t = traced()
    const model = createScriptedModel({
      turns: [
        () => {
          throw Object.assign(new Error('rate limited: key sk-123'), { code: 'RATE_LIMITED' })
        },
      ],
    })
    const agent = createAgent({ ctx: t.ctx, name: 'bad', model, session: createMemorySession() })
    await expect(agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })).rejects.toThrow(
      /rate limited/,
    )
    const chat = t.span('chat scripted-model')
    expect(chat.status).toEqual({ code: 2, message: 'RATE_LIMITED' })
    expect(chat.attributes).toMatchObject({ [A.ERROR_TYPE]: 'RATE_LIMITED', [A.DSH_MODEL_OUTCOME]: 'error' })
    const turn = t.span('invoke_agent bad')
    expect(turn.status.code).toBe(2)
    expect(turn.attributes).toMatchObject({ [A.DSH_TURN_REASON]: 'error', [A.ERROR_TYPE]: 'RATE_LIMITED' })
    // the message may hold secrets: it is recorded only with captureResults
    expect(JSON.stringify(t.spans().map((s) => [s.attributes, s.status]))).not.toContain('sk-123')
  })
})
