import { deepseekRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// DeepSeek's chunk envelope: id, object, created, model, system_fingerprint, and choices with
// delta / logprobs / finish_reason; reasoning in `reasoning_content`, content `null` meanwhile.
const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    id: '8f6e2c1a-0d4b-4c7e-9a1f-3b5d7e9f1a2c',
    object: 'chat.completion.chunk',
    created: 1_780_000_000,
    model: 'deepseek-v4-pro',
    system_fingerprint: 'fp_ds_v4_0815',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'deepseek-thinking-tool-calls',
  provider: 'DeepSeek',
  quirk:
    'thinking mode: reasoning_content before two streamed tool calls, `: keep-alive` comments, cache counts in the usage; every later request must carry the reasoning back',
  sources: [
    'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
    'https://api-docs.deepseek.com/api/create-chat-completion',
    'https://api-docs.deepseek.com/guides/kv_cache',
  ],
  baseUrl: 'https://api.deepseek.com',
  model: 'deepseek-v4-pro',
  rules: deepseekRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        ': keep-alive\n\n',
        chunk({ role: 'assistant', content: null, reasoning_content: '' }),
        chunk({ content: null, reasoning_content: 'Weather for Paris, time for Tokyo: ' }),
        chunk({ content: null, reasoning_content: 'two independent calls.' }),
        chunk({
          content: null,
          tool_calls: [
            {
              index: 0,
              id: 'call_00_p4R1s',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        }),
        chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        ': keep-alive\n\n',
        chunk({
          content: null,
          tool_calls: [
            {
              index: 1,
              id: 'call_01_t0Ky0',
              type: 'function',
              function: { name: 'get_time', arguments: '' },
            },
          ],
        }),
        chunk({ content: null, tool_calls: [{ index: 1, function: { arguments: '{"city":"Tokyo"}' } }] }),
        chunk({ content: null }, 'tool_calls', {
          prompt_tokens: 412,
          completion_tokens: 58,
          total_tokens: 470,
          prompt_tokens_details: { cached_tokens: 384 },
          completion_tokens_details: { reasoning_tokens: 21 },
          prompt_cache_hit_tokens: 384,
          prompt_cache_miss_tokens: 28,
        }),
        DONE,
      ],
      holdAfter: 8,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: null, reasoning_content: 'Both results are in.' }),
        chunk({ content: 'Paris is 18°C; ', reasoning_content: null }),
        chunk({ content: 'in Tokyo it is 09:30.', reasoning_content: null }),
        chunk({ content: '' }, 'stop', {
          prompt_tokens: 520,
          completion_tokens: 19,
          total_tokens: 539,
          prompt_cache_hit_tokens: 448,
          prompt_cache_miss_tokens: 72,
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    reasoning: 'Weather for Paris, time for Tokyo: two independent calls.',
    calls: [
      { id: 'call_00_p4R1s', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_01_t0Ky0', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 412, outputTokens: 58, cacheHitInputTokens: 384, reasoningTokens: 21 },
  },
  agent: { reason: 'completed', text: 'Paris is 18°C; in Tokyo it is 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
