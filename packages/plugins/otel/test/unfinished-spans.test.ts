import { describe, expect, it } from 'vitest'
import { createScriptedModel, textBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { createAgent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { nanos, parentId, traced } from './helpers.ts'

describe('spans an event stream leaves open', () => {
  it('a step that ends while its model call is open (its model-call-end never reached the tracer) ends the chat span, marked unfinished, at the step’s end', async () => {
    const t = traced()
    const model = createScriptedModel({ turns: [[textBlock('hi')]] })
    const agent = createAgent({ ctx: t.ctx, name: 'lossy', model, session: createMemorySession() })
    const stream = agent.stream('go')
    await stream.result
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toContain('model-call-end')
    const tracer = t.otel.traceAgent(agent)
    // a consumer that lost the model's end event: everything else reaches the tracer
    for (const event of events) if (event.type !== 'model-call-end') tracer.onEvent(event)
    const spans = t.spans()
    expect(spans.map((s) => s.name).sort()).toEqual(['chat scripted-model', 'invoke_agent lossy', 'step'])
    const chat = spans.find((s) => s.name.startsWith('chat'))!
    const step = spans.find((s) => s.name === 'step')!
    expect(parentId(chat)).toBe(step.spanContext().spanId)
    expect(chat.attributes[A.DSH_UNFINISHED]).toBe(true)
    expect(nanos(chat.endTime)).toBe(nanos(step.endTime))
    agent.dispose()
  })
})
