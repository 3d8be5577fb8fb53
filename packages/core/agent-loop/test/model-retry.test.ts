import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import {
  toolCallBlock,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { installTools, type RetrySleep } from '@deepseek-ai/dsh-tools'
import { createAgent, type AgentEvent, type ModelRetryOptions } from '@deepseek-ai/dsh-agent-loop'
import { registerBasicTools, shape } from './support/agents.ts'
import { createStreamingModel, type StreamScript } from './support/stream-model.ts'

/** What a provider adapter throws for a 429 / 5xx / dropped stream: marked retryable. */
function providerError(message: string, retryAfterMs?: number): Error {
  return Object.assign(new Error(message), {
    retryable: true,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  })
}

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
const answer = (text: string): ModelResponse => ({
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  finishReason: 'stop',
  usage,
})

/** A `step`-only model that plays `outcomes` in order: an error to throw, or a response. */
function stepModel(outcomes: readonly (Error | ModelResponse)[]): LanguageModel & { calls: number } {
  const model = {
    provider: 'test',
    modelId: 'test',
    calls: 0,
    step: async (_request: ModelRequest) => {
      const outcome = outcomes[Math.min(model.calls++, outcomes.length - 1)]!
      if (outcome instanceof Error) throw outcome
      return outcome
    },
  }
  return model
}

/** A sleep that records its waits and never waits (no real time in tests). */
function instantSleep(): { sleep: RetrySleep; waits: number[] } {
  const waits: number[] = []
  return { waits, sleep: async (ms) => void waits.push(ms) }
}

function agentFor(model: LanguageModel, modelRetry: ModelRetryOptions | false) {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  registerBasicTools(root)
  const session = createMemorySession()
  const agent = createAgent({ ctx: root, name: 'retrier', model, session, modelRetry })
  const events: AgentEvent[] = []
  return { agent, session, events, onEvent: (event: AgentEvent) => void events.push(event) }
}

const modelEvents = (events: readonly AgentEvent[]) =>
  events
    .filter((e) => e.type.startsWith('model-call'))
    .map((e) =>
      e.type === 'model-call-retry'
        ? `retry ${e.attempt} after ${e.delayMs}`
        : e.type === 'model-call-end'
          ? `end ${e.attempt} ${e.outcome}`
          : `start ${(e as { attempt: number }).attempt}`,
    )

describe('model-level retry in the loop', () => {
  it('retries a retryable provider error with backoff (injected sleep), every attempt in the event stream', async () => {
    const { sleep, waits } = instantSleep()
    const model = stepModel([providerError('HTTP 503'), providerError('HTTP 500'), answer('Hello.')])
    const { agent, session, events, onEvent } = agentFor(model, { sleep, random: () => 0, baseDelayMs: 100 })
    const result = await agent.run('Hi', { onEvent })
    expect(result).toMatchObject({ reason: 'completed', text: 'Hello.', steps: 1 })
    expect(waits).toEqual([50, 100])
    expect(modelEvents(events)).toEqual([
      'start 1',
      'end 1 error',
      'retry 1 after 50',
      'start 2',
      'end 2 error',
      'retry 2 after 100',
      'start 3',
      'end 3 ok',
    ])
    // every end carries the same fields, and what its outcome adds
    const ends = events.filter((e) => e.type === 'model-call-end')
    for (const end of ends)
      expect(Object.keys(end).slice(0, 7)).toEqual([
        'type',
        'turn',
        'step',
        'at',
        'attempt',
        'durationMs',
        'outcome',
      ])
    expect(ends[0]).toMatchObject({ outcome: 'error', error: expect.anything() })
    expect(Object.keys(ends[2]!).slice(7)).toEqual(['message', 'finishReason', 'usage'])
    // the failed attempts recorded nothing
    expect(shape(session.events())).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'turn/end completed',
    ])
  })

  it('waits the retryAfterMs the provider asked for, and does not retry one that asks for more than maxDelayMs', async () => {
    const { sleep, waits } = instantSleep()
    const ok = agentFor(stepModel([providerError('429', 1_500), answer('ok')]), { sleep })
    await ok.agent.run('Hi')
    expect(waits).toEqual([1_500])
    const tooLong = stepModel([providerError('429', 120_000), answer('never')])
    const slow = agentFor(tooLong, { sleep, maxDelayMs: 60_000 })
    await expect(slow.agent.run('Hi')).rejects.toThrow('429')
    expect(tooLong.calls).toBe(1)
  })

  it('is bounded: after maxAttempts the turn fails with the provider error', async () => {
    const { sleep, waits } = instantSleep()
    const model = stepModel([providerError('HTTP 502')])
    const { agent, session } = agentFor(model, { sleep, maxAttempts: 3 })
    await expect(agent.run('Hi')).rejects.toThrow('HTTP 502')
    expect([model.calls, waits.length]).toEqual([3, 2])
    expect(shape(session.events()).at(-1)).toBe('turn/end error')
  })

  it('does not retry an error that is not marked retryable, nor with modelRetry: false', async () => {
    const { sleep, waits } = instantSleep()
    const plain = stepModel([new Error('HTTP 400 bad request'), answer('never')])
    await expect(agentFor(plain, { sleep }).agent.run('Hi')).rejects.toThrow('HTTP 400')
    const off = stepModel([providerError('HTTP 503'), answer('never')])
    await expect(agentFor(off, false).agent.run('Hi')).rejects.toThrow('HTTP 503')
    expect([plain.calls, off.calls, waits]).toEqual([1, 1, []])
  })

  it('an abort during the wait ends the turn aborted, without another model call', async () => {
    const controller = new AbortController()
    const sleep: RetrySleep = (_ms, signal) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
        controller.abort()
      })
    const model = stepModel([providerError('HTTP 503'), answer('never')])
    const { agent } = agentFor(model, { sleep })
    const result = await agent.run('Hi', { signal: controller.signal })
    expect(result.reason).toBe('aborted')
    expect(model.calls).toBe(1)
  })

  it('rejects bad retry options naming them', () => {
    const model = stepModel([answer('x')])
    expect(() => agentFor(model, { maxAttempts: 0 })).toThrow(
      /options\.modelRetry\.maxAttempts must be a positive integer/,
    )
    expect(() => agentFor(model, { sleep: 5 as never })).toThrow(
      /options\.modelRetry\.sleep must be a function/,
    )
  })

  it('T40: a stream that drops before any tool call is complete is retried; what it streamed is never recorded twice', async () => {
    const { sleep } = instantSleep()
    const scripts: StreamScript[] = [
      (s) => {
        s.text('Let me ')
        s.fail(providerError('connection lost'))
      },
      (s) => {
        s.text('Hello again.')
        s.finish()
      },
    ]
    const model = createStreamingModel(scripts)
    const { agent, session, events, onEvent } = agentFor(model, { sleep })
    const result = await agent.run('Hi', { onEvent })
    expect(result.text).toBe('Hello again.')
    expect(model.streams).toHaveLength(2)
    const messages = session.events().filter((e) => e.type === 'assistant/message')
    expect(messages).toHaveLength(1)
    expect(JSON.stringify(messages[0]?.data)).not.toContain('Let me')
    expect(modelEvents(events)).toEqual([
      'start 1',
      'end 1 error',
      'retry 1 after ' +
        String((events.find((e) => e.type === 'model-call-retry') as { delayMs: number }).delayMs),
      'start 2',
      'end 2 ok',
    ])
  })

  it('T40: a stream that drops after a tool call was complete (it may have started) is not retried', async () => {
    const { sleep, waits } = instantSleep()
    const scripts: StreamScript[] = [
      (s) => {
        s.call(toolCallBlock({ id: 'c1', name: 'echo', args: { text: 'hi' } }))
        s.fail(providerError('connection lost'))
      },
    ]
    const model = createStreamingModel(scripts)
    const { agent, session } = agentFor(model, { sleep })
    await expect(agent.run('Hi')).rejects.toThrow('connection lost')
    expect(model.streams).toHaveLength(1)
    expect(waits).toEqual([])
    // the call that was complete is recorded once and answered once
    expect(shape(session.events()).filter((s) => s.startsWith('tool/'))).toEqual([
      'tool/call c1',
      'tool/result c1',
    ])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})
