/**
 * Chat-completion streams in the shape DeepSeek's API sends them (field for field: id, object,
 * created, model, system_fingerprint, choices[].delta / logprobs / finish_reason, usage with
 * prompt_cache_hit_tokens / prompt_cache_miss_tokens), written by hand for the tests.
 */

const base = {
  id: 'f3a1c9e2-5b7d-4c1e-9a0b-2d6e8f4a1b3c',
  object: 'chat.completion.chunk',
  created: 1_762_000_000,
  model: 'deepseek-chat',
  system_fingerprint: 'fp_test_0001',
}

export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  usage: Record<string, unknown> | null = null,
): Record<string, unknown> {
  return {
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(usage === null ? {} : { usage }),
  }
}

/** OpenAI's `stream_options.include_usage` shape: a last chunk with no choices. */
export function usageChunk(usage: Record<string, unknown>): Record<string, unknown> {
  return { ...base, choices: [], usage }
}

export const deepseekUsage = {
  prompt_tokens: 120,
  completion_tokens: 42,
  total_tokens: 162,
  prompt_tokens_details: { cached_tokens: 64 },
  prompt_cache_hit_tokens: 64,
  prompt_cache_miss_tokens: 56,
}

/** Plain text with multi-byte characters (2, 3 and 4 UTF-8 bytes). */
export const textChunks = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hel' }),
  chunk({ content: 'lo, wörld' }),
  chunk({ content: ' 世界 🙂' }),
  chunk({ content: '' }, 'stop', deepseekUsage),
]
export const textAnswer = 'Hello, wörld 世界 🙂'

/** Thinking mode: reasoning_content deltas, then content deltas (reasoning_content null). */
export const reasoningChunks = [
  chunk({ role: 'assistant', content: null, reasoning_content: '' }),
  chunk({ content: null, reasoning_content: '9.11 vs 9.8: ' }),
  chunk({ content: null, reasoning_content: 'compare 0.11 and 0.8 — 0.8 is larger.' }),
  chunk({ content: '9.8', reasoning_content: null }),
  chunk({ content: ' is larger.', reasoning_content: null }),
  chunk({ content: '', reasoning_content: null }, 'stop', {
    ...deepseekUsage,
    completion_tokens_details: { reasoning_tokens: 30 },
  }),
]

export const toolArgs = [
  { city: '杭州', unit: 'celsius' },
  { path: 'notes/日本語.md' },
  { query: 'emoji 🙂 and "quotes"', limit: 3 },
]

/** Reasoning, a sentence, then three tool calls whose arguments arrive in small pieces. */
export function toolCallChunks(): Record<string, unknown>[] {
  const names = ['get_weather', 'read_file', 'search']
  const chunks: Record<string, unknown>[] = [
    chunk({
      role: 'assistant',
      content: null,
      reasoning_content: 'I need the weather, a file and a search.',
    }),
    chunk({ content: 'Let me check.', reasoning_content: null }),
  ]
  toolArgs.forEach((args, index) => {
    const json = JSON.stringify(args)
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: `call_${index}_abc`,
            type: 'function',
            function: { name: names[index], arguments: '' },
          },
        ],
      }),
    )
    // Pieces of 1–4 characters: keys, quotes and multi-byte characters end up split.
    for (let at = 0, size = 1; at < json.length; at += size, size = (size % 4) + 1) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: json.slice(at, at + size) } }] }))
    }
  })
  chunks.push(chunk({ content: null }, 'tool_calls'))
  chunks.push(
    usageChunk({
      prompt_tokens: 300,
      completion_tokens: 90,
      total_tokens: 390,
      prompt_cache_hit_tokens: 256,
      prompt_cache_miss_tokens: 44,
    }),
  )
  return chunks
}
