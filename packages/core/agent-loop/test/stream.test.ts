import { describe, expect, it } from 'vitest'
import { LlmError, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { AgentLoopError, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { agentWith } from './support/agents.ts'

describe('agent.stream', () => {
  it('yields the turn as AgentEvents (x-start / x-end) and exposes the result', async () => {
    const { agent } = agentWith(
      [[toolCallBlock({ id: 'e', name: 'echo', args: { text: 'hi' } })], [textBlock('bye')]],
      { eagerToolExecution: false },
    )
    const stream = agent.stream('go')
    const types: AgentEvent['type'][] = []
    for await (const event of stream) types.push(event.type)
    expect(types).toEqual([
      'turn-start',
      'step-start',
      'model-call-start',
      'model-call-end',
      'tool-call-queued',
      'tool-call-start',
      'tool-call-settled',
      'tool-call-end',
      'step-end',
      'step-start',
      'model-call-start',
      'model-call-end',
      'step-end',
      'turn-end',
    ])
    expect(await stream.result).toMatchObject({ reason: 'completed', text: 'bye' })
  })

  it('throws the turn error after turn-end; result rejects with it; a second iteration is refused', async () => {
    const { agent } = agentWith([])
    const stream = agent.stream('go')
    const seen: string[] = []
    let thrown: unknown
    try {
      for await (const event of stream) seen.push(event.type)
    } catch (error) {
      thrown = error
    }
    expect(seen.at(-1)).toBe('turn-end')
    expect(LlmError.isInstance(thrown) && thrown.code).toBe('SCRIPT_EXHAUSTED')
    await expect(stream.result).rejects.toBe(thrown)
    expect(() => stream[Symbol.asyncIterator]()).toThrow(AgentLoopError)
  })

  it('the result settles even if the stream is never read, and leaving the loop early does not stop the turn', async () => {
    const { agent, session } = agentWith([[textBlock('a')], [textBlock('b')]])
    expect(await agent.stream('unread').result).toMatchObject({ turn: 1, text: 'a' })
    const stream = agent.stream('second')
    for await (const event of stream) if (event.type === 'turn-start') break
    expect(await stream.result).toMatchObject({ turn: 2, text: 'b' })
    expect(session.events().at(-1)!.type).toBe('turn/end')
  })
})
