import { chunk, usageChunk } from './fixtures.ts'

/** A thinking-mode step that calls tools: reasoning, then each call with its arguments in two pieces. */
export function toolStep(reasoning: string, calls: readonly { id: string; name: string; args: unknown }[]) {
  const chunks: Record<string, unknown>[] = [
    chunk({ role: 'assistant', content: null, reasoning_content: reasoning }),
  ]
  calls.forEach((call, index) => {
    const json = JSON.stringify(call.args)
    const half = Math.ceil(json.length / 2)
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: json.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: json.slice(half) } }] }),
    )
  })
  chunks.push(chunk({ content: null }, 'tool_calls'))
  chunks.push(
    usageChunk({
      prompt_tokens: 200,
      completion_tokens: 40,
      total_tokens: 240,
      prompt_cache_hit_tokens: 128,
      prompt_cache_miss_tokens: 72,
    }),
  )
  return chunks
}

/** A final answer in a few text deltas. */
export function answerStep(text: string) {
  const words = text.split(/(?<= )/)
  return [
    chunk({ role: 'assistant', content: '', reasoning_content: null }),
    ...words.map((word) => chunk({ content: word })),
    chunk({ content: '' }, 'stop', {
      prompt_tokens: 260,
      completion_tokens: 12,
      total_tokens: 272,
      prompt_cache_hit_tokens: 192,
      prompt_cache_miss_tokens: 68,
    }),
  ]
}
