import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  textBlock,
  type AssistantContent,
  type LanguageModel,
  type ModelStreamPart,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A, OtelEvents as E } from '@deepseek-ai/dsh-otel'
import { childrenOf, deferred, eventNames, nanos, parentId, traced, tree, type Traced } from './helpers.ts'

const USAGE = { inputTokens: 5, outputTokens: 3, totalTokens: 8 }

/** One streamed step: what the model yields, and when (the script awaits pauses the test controls). */
type StepScript = () => AsyncGenerator<ModelStreamPart>

/** A model that only streams: each `stream` call plays the next script. */
function streamingModel(scripts: readonly StepScript[]): LanguageModel {
  let next = 0
  return {
    provider: 'deepseek',
    modelId: 'deepseek-chat',
    step: () => Promise.reject(new Error('this model only streams')),
    stream: () => {
      const script = scripts[next++]
      if (script === undefined) throw new Error(`no script for stream ${next}`)
      return script()
    },
  }
}

const call = (id: string, name: string): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name,
  arguments: '{}',
})

/** The stream part that hands one complete call over. */
const callPart = (id: string, name: string): ModelStreamPart => ({ type: 'tool-call', call: call(id, name) })

const finish = (content: AssistantContent[]): ModelStreamPart => ({
  type: 'finish',
  response: {
    message: { role: 'assistant', content },
    finishReason: content.some((block) => block.type === 'tool-call') ? 'tool-calls' : 'stop',
    usage: USAGE,
  },
})

async function* answer(): AsyncGenerator<ModelStreamPart> {
  yield { type: 'text-delta', text: 'done' }
  yield finish([textBlock('done')])
}

/** `fetch` may start while the model streams (parallel-safe); `write` is exclusive, so it waits for the end. */
function register(t: Traced, fetch: (signal: AbortSignal) => Promise<string>): void {
  t.ctx.tools.register(
    defineTool({
      name: 'fetch',
      description: 'Fetch something',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: (_args, exec) => fetch(exec.signal),
    }),
  )
  t.ctx.tools.register(
    defineTool({
      name: 'write',
      description: 'Write something',
      parameters: z.object({}),
      execute: () => 'written',
    }),
  )
}

const toolSpan = (t: Traced, id: string) => {
  const found = t.spans().filter((s) => s.attributes[A.GEN_AI_TOOL_CALL_ID] === id)
  expect(found).toHaveLength(1)
  return found[0]!
}

describe('calls started while the model streams (eager dispatch)', () => {
  it('T40: a call started during the stream is a child of its step beside the still-open chat span, marked dsh.tool.during_stream; the step carries the eager figures', async () => {
    const t = traced()
    const bodyRan = deferred()
    register(t, async () => {
      bodyRan.resolve()
      return 'fetched'
    })
    const model = streamingModel([
      async function* () {
        yield callPart('c1', 'fetch')
        // the stream stays open until the first call's body has run: it started during the stream
        await bodyRan.promise
        yield callPart('c2', 'write')
        yield finish([call('c1', 'fetch'), call('c2', 'write')])
      },
      answer,
    ])
    const agent = createAgent({ ctx: t.ctx, name: 'eager', model, session: createMemorySession() })
    expect(agent.eagerToolExecution).toBe(true)
    const result = await agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })
    expect(result.reason).toBe('completed')

    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID, A.DSH_TOOL_DURING_STREAM])).toEqual([
      'invoke_agent eager',
      '  step',
      '    chat deepseek-chat',
      '    execute_tool fetch gen_ai.tool.call.id=c1 dsh.tool.during_stream=true',
      '    execute_tool write gen_ai.tool.call.id=c2 dsh.tool.during_stream=false',
      '  step',
      '    chat deepseek-chat',
    ])
    const spans = t.spans()
    const [step1, step2] = spans.filter((s) => s.name === 'step')
    const [chat1, chat2] = childrenOf(spans, step1!)
      .concat(childrenOf(spans, step2!))
      .filter((s) => s.name === 'chat deepseek-chat')
    const c1 = toolSpan(t, 'c1')
    const c2 = toolSpan(t, 'c2')
    // c1 ran inside the model call's span; c2 started after the stream ended
    expect(nanos(c1.startTime)).toBeGreaterThanOrEqual(nanos(chat1!.startTime))
    expect(nanos(c1.startTime)).toBeLessThan(nanos(chat1!.endTime))
    expect(nanos(c2.startTime)).toBeGreaterThanOrEqual(nanos(chat1!.endTime))
    for (const span of [c1, c2]) {
      expect(parentId(span)).toBe(step1!.spanContext().spanId)
      expect(eventNames(span)).toEqual([
        E.PRE_EXECUTE,
        E.GUARDS,
        E.DISPATCH,
        E.BODY_START,
        E.BODY_END,
        E.POST_EXECUTE,
        E.RESULT,
      ])
      expect(span.attributes[A.DSH_TOOL_OUTCOME]).toBe('success')
      expect(nanos(span.endTime)).toBeLessThanOrEqual(nanos(step1!.endTime))
    }
    expect(chat1!.attributes[A.GEN_AI_REQUEST_STREAM]).toBe(true)
    expect(chat2!.attributes[A.GEN_AI_REQUEST_STREAM]).toBe(true)
    expect(step1!.attributes).toMatchObject({
      [A.DSH_STEP_TOOL_CALLS]: 2,
      [A.DSH_STEP_EAGER_QUEUED_DURING_STREAM]: 2,
      [A.DSH_STEP_EAGER_STARTED_DURING_STREAM]: 1,
    })
    expect(step1!.attributes[A.DSH_STEP_EAGER_OVERLAP_MS]).toBeGreaterThanOrEqual(0)
    expect(step1!.attributes[A.DSH_STEP_EAGER_SAVED_MS]).toBeGreaterThanOrEqual(0)
    // a step without tool calls has no figures
    expect(step2!.attributes[A.DSH_STEP_EAGER_STARTED_DURING_STREAM]).toBeUndefined()
  })

  it('T40: a stream that fails after a call started: the started call is ABORTED under its step, the one not started ABORTED_BEFORE_DISPATCH, the chat and turn spans ERROR', async () => {
    const t = traced()
    const bodyRan = deferred()
    register(t, (signal) => {
      bodyRan.resolve()
      // runs until the failed stream aborts it
      return new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      })
    })
    const model = streamingModel([
      async function* () {
        yield callPart('c1', 'fetch')
        await bodyRan.promise
        yield callPart('c2', 'write')
        throw Object.assign(new Error('connection reset'), { code: 'STREAM_BROKEN' })
      },
    ])
    const agent = createAgent({ ctx: t.ctx, name: 'broken', model, session: createMemorySession() })
    await expect(agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })).rejects.toThrow(
      /connection reset/,
    )

    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID, A.ERROR_TYPE, A.DSH_TOOL_DURING_STREAM])).toEqual([
      'invoke_agent broken error.type=STREAM_BROKEN',
      '  step',
      '    chat deepseek-chat error.type=STREAM_BROKEN',
      '    execute_tool fetch gen_ai.tool.call.id=c1 error.type=ABORTED dsh.tool.during_stream=true',
      '    execute_tool write gen_ai.tool.call.id=c2 error.type=ABORTED_BEFORE_DISPATCH',
    ])
    const c1 = toolSpan(t, 'c1')
    const c2 = toolSpan(t, 'c2')
    expect(c1.status.code).toBe(2)
    expect(eventNames(c1)).toContain(E.BODY_START)
    // never started: only its result, and no tool-call-start event to say when it would have
    expect(eventNames(c2)).toEqual([E.RESULT])
    expect(t.span('chat deepseek-chat').attributes[A.DSH_MODEL_OUTCOME]).toBe('error')
    expect(t.span('step').attributes).toMatchObject({
      [A.DSH_STEP_TOOL_CALLS]: 2,
      [A.DSH_STEP_EAGER_STARTED_DURING_STREAM]: 1,
    })
    // nothing left open: every span ended with the turn
    expect(t.spans().some((s) => s.attributes[A.DSH_UNFINISHED] === true)).toBe(false)
  })

  it('eagerToolExecution: false — the model call is not streamed, calls start after it, no eager figures', async () => {
    const t = traced()
    register(t, async () => 'fetched')
    const model: LanguageModel = {
      provider: 'deepseek',
      modelId: 'deepseek-chat',
      stream: () => {
        throw new Error('not streamed')
      },
      step: (() => {
        let n = 0
        return async () =>
          n++ === 0
            ? {
                message: { role: 'assistant', content: [call('c1', 'fetch')] },
                finishReason: 'tool-calls',
                usage: USAGE,
              }
            : {
                message: { role: 'assistant', content: [textBlock('done')] },
                finishReason: 'stop',
                usage: USAGE,
              }
      })(),
    }
    const agent = createAgent({
      ctx: t.ctx,
      name: 'plain',
      model,
      session: createMemorySession(),
      eagerToolExecution: false,
    })
    await agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })
    const chats = t.spans().filter((s) => s.name === 'chat deepseek-chat')
    expect(chats.map((s) => s.attributes[A.GEN_AI_REQUEST_STREAM])).toEqual([false, false])
    const c1 = toolSpan(t, 'c1')
    expect(c1.attributes[A.DSH_TOOL_DURING_STREAM]).toBe(false)
    expect(nanos(c1.startTime)).toBeGreaterThanOrEqual(nanos(chats[0]!.endTime))
    const [step1] = t.spans().filter((s) => s.name === 'step')
    expect(step1!.attributes[A.DSH_STEP_TOOL_CALLS]).toBe(1)
    expect(step1!.attributes[A.DSH_STEP_EAGER_QUEUED_DURING_STREAM]).toBeUndefined()
  })

  it('a reader of agent.stream that falls behind still gets the tree; during_stream is set only where the event came before the result', async () => {
    const t = traced()
    register(t, async () => 'fetched')
    const model = streamingModel([
      async function* () {
        yield callPart('c1', 'fetch')
        yield finish([call('c1', 'fetch')])
      },
      answer,
    ])
    const agent = createAgent({ ctx: t.ctx, name: 'late', model, session: createMemorySession() })
    const tracer = t.otel.traceAgent(agent)
    const stream = agent.stream('go')
    await stream.result
    for await (const event of stream) tracer.onEvent(event)
    expect(tree(t.spans(), [A.DSH_STEP])).toEqual([
      'invoke_agent late',
      '  step dsh.step=1',
      '    chat deepseek-chat dsh.step=1',
      '    execute_tool fetch dsh.step=1',
      '  step dsh.step=2',
      '    chat deepseek-chat dsh.step=2',
    ])
    expect(toolSpan(t, 'c1').attributes[A.DSH_TOOL_DURING_STREAM]).toBeUndefined()
  })
})
