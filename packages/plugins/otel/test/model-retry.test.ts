import { describe, expect, it } from 'vitest'
import type { LanguageModel, ModelResponse } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { traced } from './helpers.ts'

/** Fails its first call with an error a provider adapter marks retryable, then answers. */
function flakyModel(): LanguageModel {
  let calls = 0
  return {
    provider: 'deepseek',
    modelId: 'deepseek-chat',
    step: () => {
      calls += 1
      if (calls === 1)
        return Promise.reject(Object.assign(new Error('rate limited'), { retryable: true, retryAfterMs: 5 }))
      const response: ModelResponse = {
        message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      }
      return Promise.resolve(response)
    },
  }
}

describe('model-level retry in the trace', () => {
  it('a retried model call is an event on its step span, with the attempt and the delay', async () => {
    const t = traced()
    const agent = createAgent({
      ctx: t.ctx,
      name: 'retrier',
      model: flakyModel(),
      session: createMemorySession(),
      modelRetry: { sleep: () => Promise.resolve() },
    })
    const result = await agent.run('hi', { onEvent: t.otel.traceAgent(agent).onEvent })
    expect(result.reason).toBe('completed')
    const step = t.span('step')
    const retries = step.events.filter((e) => e.name === 'dsh.model.retry')
    expect(retries).toHaveLength(1)
    expect(retries[0]!.attributes).toMatchObject({
      'dsh.model.attempt': 1,
      'dsh.model.retry_in_ms': 5,
    })
  })
})
