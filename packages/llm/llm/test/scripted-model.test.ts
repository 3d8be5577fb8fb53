import { describe, expect, it } from 'vitest'
import { LlmError, createScriptedModel, textBlock, toolCallBlock, type Message } from '@deepseek-ai/dsh-llm'

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]

describe('createScriptedModel', () => {
  it('replays turns in order, infers finish reasons and records detached requests', async () => {
    const model = createScriptedModel({
      turns: [
        [toolCallBlock({ id: 'c1', name: 'echo', args: { text: 'x' } })],
        { content: [textBlock('done')] },
      ],
    })
    const tools = [{ name: 'echo', description: 'Echo', parameters: { type: 'object' } }]
    const first = await model.step({ messages: history, tools })
    expect(first.finishReason).toBe('tool-calls')
    expect(first.message.content[0]).toMatchObject({ type: 'tool-call', name: 'echo' })
    const second = await model.step({ messages: history, tools: [] })
    expect(second.finishReason).toBe('stop')
    expect(second.usage.totalTokens).toBe(second.usage.inputTokens + second.usage.outputTokens)
    expect(model.requests).toHaveLength(2)
    expect(model.requests[0]!.tools).toEqual(tools)
    expect(model.requests[0]!.tools).not.toBe(tools)
    expect(model.remaining).toBe(0)
  })

  it('rejects past the end of the script with SCRIPT_EXHAUSTED', async () => {
    const model = createScriptedModel({ turns: [] })
    await expect(model.step({ messages: history, tools: [] })).rejects.toMatchObject({
      code: 'SCRIPT_EXHAUSTED',
    })
  })

  it('a turn function sees the request; an abort ends a turn that never settles', async () => {
    const controller = new AbortController()
    const model = createScriptedModel({
      turns: [
        (request) => {
          expect(request.messages).toEqual(history)
          return new Promise<never>(() => {})
        },
      ],
    })
    const pending = model.step({ messages: history, tools: [], signal: controller.signal })
    controller.abort()
    const error: unknown = await pending.catch((e: unknown) => e)
    expect(LlmError.isInstance(error)).toBe(true)
    expect((error as LlmError).code).toBe('ABORTED')
  })

  it('a request aborted before it starts rejects ABORTED without using a turn or being recorded', async () => {
    const model = createScriptedModel({ turns: [[textBlock('a')]] })
    const error: unknown = await model
      .step({ messages: history, tools: [], signal: AbortSignal.abort() })
      .catch((e: unknown) => e)
    expect(LlmError.isInstance(error) && error.code).toBe('ABORTED')
    expect(model.remaining).toBe(1)
    expect(model.requests).toEqual([])
    expect((await model.step({ messages: history, tools: [] })).message.content).toEqual([textBlock('a')])
  })

  it('streams text deltas, tool calls and a final finish part', async () => {
    const model = createScriptedModel({
      turns: [[textBlock('a'), toolCallBlock({ id: 'c', name: 't', args: {} })]],
    })
    const parts = []
    for await (const part of model.stream({ messages: history, tools: [] })) parts.push(part.type)
    expect(parts).toEqual(['text-delta', 'tool-call', 'finish'])
  })

  it('rejects a script that is not an array', () => {
    expect(() => createScriptedModel({ turns: 'x' as never })).toThrow(
      /options.turns must be an array, got the string "x"/,
    )
  })
})
