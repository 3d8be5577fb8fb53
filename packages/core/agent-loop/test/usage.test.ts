import { describe, expect, it } from 'vitest'
import {
  textBlock,
  toolCallBlock,
  type LanguageModel,
  type ModelResponse,
  type TokenUsage,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { registerBasicTools } from './support/agents.ts'

/** A model whose steps report the given usages: a tool call first, then final text. */
function modelReporting(usages: readonly TokenUsage[]): LanguageModel {
  let step = 0
  return {
    provider: 'test',
    modelId: 'usage',
    step(): Promise<ModelResponse> {
      const usage = usages[step]!
      const last = step === usages.length - 1
      step += 1
      return Promise.resolve({
        message: {
          role: 'assistant',
          content: last
            ? [textBlock('done')]
            : [toolCallBlock({ id: `c${step}`, name: 'echo', args: { text: 'x' } })],
        },
        finishReason: last ? 'stop' : 'tool-calls',
        usage,
      })
    },
  }
}

function agentOn(model: LanguageModel) {
  const root = createContext()
  installTools(root)
  registerBasicTools(root)
  const session = createMemorySession()
  return { agent: createAgent({ ctx: root, name: 'usage', model, session }), session }
}

describe('turn usage', () => {
  it('sums the provider breakdowns (cache hits, misses, reasoning) over the steps that report them', async () => {
    const { agent } = agentOn(
      modelReporting([
        {
          inputTokens: 100,
          outputTokens: 10,
          totalTokens: 110,
          cacheHitInputTokens: 60,
          cacheMissInputTokens: 40,
          reasoningTokens: 4,
        },
        {
          inputTokens: 200,
          outputTokens: 20,
          totalTokens: 220,
          cacheHitInputTokens: 150,
          cacheMissInputTokens: 50,
        },
      ]),
    )
    const result = await agent.run('go')
    expect(result.usage).toEqual({
      inputTokens: 300,
      outputTokens: 30,
      totalTokens: 330,
      cacheHitInputTokens: 210,
      cacheMissInputTokens: 90,
      reasoningTokens: 4,
    })
  })

  it('leaves a breakdown out when no step reported it', async () => {
    const { agent } = agentOn(
      modelReporting([
        { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        { inputTokens: 2, outputTokens: 2, totalTokens: 4 },
      ]),
    )
    const result = await agent.run('go')
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 3, totalTokens: 6 })
    expect('cacheHitInputTokens' in result.usage).toBe(false)
  })
})
