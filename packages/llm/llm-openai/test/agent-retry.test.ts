import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { ChatCompletionsError } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { installTools } from '@deepseek-ai/dsh-tools'
import { modelFor } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { answer, sse, sseText } from './support/sse.ts'
import { answerStep } from './support/turns.ts'

// The loop's model-level retry (packages/core/agent-loop) end to end: this adapter marks a 429 and
// a 503 retryable with the provider's Retry-After, and the loop waits that long (through an injected
// sleep: no real waiting) and calls again.

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

describe('model-level retry against a real HTTP server', () => {
  it('a 429 and a 503 with Retry-After are retried after the wait the provider asked for', async () => {
    server.respond(
      answer(429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after-ms': '1200' }),
      answer(503, { error: { message: 'overloaded' } }, { 'retry-after': '2' }),
      sse(sseText(answerStep('Back online.'))),
    )
    const waits: number[] = []
    const ctx = createContext()
    installTools(ctx)
    const session = createMemorySession()
    const agent = createAgent({
      ctx,
      name: 'retrying',
      model: modelFor(server),
      session,
      modelRetry: { sleep: async (ms) => void waits.push(ms) },
    })
    const errors: unknown[] = []
    const onEvent = (event: AgentEvent): void => {
      if (event.type === 'model-call-retry') errors.push(event.error)
    }
    const result = await agent.run('Are you there?', { onEvent })
    expect(result.text).toBe('Back online.')
    expect(waits).toEqual([1_200, 2_000])
    expect(errors.map((e) => (ChatCompletionsError.isInstance(e) ? e.code : e))).toEqual([
      'RATE_LIMITED',
      'SERVER_ERROR',
    ])
    expect(server.requests).toHaveLength(3)
    expect(session.events().filter((e) => e.type === 'assistant/message')).toHaveLength(1)
  })
})
