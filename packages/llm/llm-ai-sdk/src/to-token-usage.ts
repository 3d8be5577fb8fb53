import type { LanguageModelV3Usage } from '@ai-sdk/provider'
import type { TokenUsage } from '@deepseek-ai/dsh-llm'

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined

/**
 * The AI SDK's usage as the suite's: `inputTokens.total` / `outputTokens.total` (0 when the provider
 * reported none), the cache reads as `cacheHitInputTokens` and the uncached rest as
 * `cacheMissInputTokens`, and `outputTokens.reasoning` as `reasoningTokens`, each only when reported.
 */
export function toTokenUsage(usage: LanguageModelV3Usage | undefined): TokenUsage {
  const inputTokens = count(usage?.inputTokens?.total) ?? 0
  const outputTokens = count(usage?.outputTokens?.total) ?? 0
  const hit = count(usage?.inputTokens?.cacheRead)
  const miss = count(usage?.inputTokens?.noCache)
  const reasoning = count(usage?.outputTokens?.reasoning)
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(hit === undefined ? {} : { cacheHitInputTokens: hit }),
    ...(miss === undefined ? {} : { cacheMissInputTokens: miss }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  }
}
