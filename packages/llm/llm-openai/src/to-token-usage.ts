import type { TokenUsage } from '@deepseek-ai/dsh-llm'

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
}

/**
 * Maps a chat-completions `usage` object. DeepSeek reports `prompt_cache_hit_tokens` /
 * `prompt_cache_miss_tokens`; OpenAI reports `prompt_tokens_details.cached_tokens`, from which the
 * miss count follows. Counts that are absent or not non-negative numbers are left out (or 0 for
 * the three required ones).
 */
export function toTokenUsage(raw: unknown): TokenUsage {
  const inputTokens = count(field(raw, 'prompt_tokens')) ?? 0
  const outputTokens = count(field(raw, 'completion_tokens')) ?? 0
  const totalTokens = count(field(raw, 'total_tokens')) ?? inputTokens + outputTokens
  const cached = count(field(field(raw, 'prompt_tokens_details'), 'cached_tokens'))
  const hit = count(field(raw, 'prompt_cache_hit_tokens')) ?? cached
  const miss =
    count(field(raw, 'prompt_cache_miss_tokens')) ??
    (cached === undefined ? undefined : Math.max(0, inputTokens - cached))
  const reasoning = count(field(field(raw, 'completion_tokens_details'), 'reasoning_tokens'))
  return {
    inputTokens,
    outputTokens,
    totalTokens,
    ...(hit === undefined ? {} : { cacheHitInputTokens: hit }),
    ...(miss === undefined ? {} : { cacheMissInputTokens: miss }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  }
}
