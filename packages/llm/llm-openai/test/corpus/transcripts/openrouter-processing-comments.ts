import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// OpenRouter: `: OPENROUTER PROCESSING` comments, `provider`, reasoning in `reasoning` with
// `reasoning_details`, `native_finish_reason`, and the usage (with its cost) on a last chunk.
const base = {
  id: 'gen-1780001300-Xq2Lm9Pz4Rt7Vw1Yb3Nc',
  provider: 'Fireworks',
  model: 'deepseek/deepseek-v4-pro',
  object: 'chat.completion.chunk',
  created: 1_780_001_300,
}
const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish, logprobs: null }],
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'openrouter-processing-comments',
  provider: 'OpenRouter',
  quirk:
    '`: OPENROUTER PROCESSING` keep-alive comments, reasoning in `reasoning` (+ `reasoning_details`), usage with its cost on a last chunk',
  sources: [
    'https://openrouter.ai/docs/api-reference/streaming',
    'https://openrouter.ai/docs/use-cases/reasoning-tokens',
  ],
  baseUrl: 'https://openrouter.ai/api/v1',
  model: 'deepseek/deepseek-v4-pro',
  rules: bearerRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        ': OPENROUTER PROCESSING\n\n',
        ': OPENROUTER PROCESSING\n\n',
        chunk({
          role: 'assistant',
          content: '',
          reasoning: 'Both lookups are independent.',
          reasoning_details: [
            { type: 'reasoning.text', text: 'Both lookups are independent.', format: 'unknown', index: 0 },
          ],
        }),
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: 'call_or_w1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }),
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 1,
              id: 'call_or_t2',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({ role: 'assistant', content: '' }, 'tool_calls'),
        chunk({ role: 'assistant', content: '' }, null, {
          prompt_tokens: 174,
          completion_tokens: 40,
          total_tokens: 214,
          cost: 0.0000972,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 7 },
        }),
        DONE,
      ],
      holdAfter: 4,
    },
    {
      kind: 'sse',
      pieces: [
        ': OPENROUTER PROCESSING\n\n',
        chunk({ role: 'assistant', content: 'Paris: 18°C, Tokyo: 09:30.' }),
        chunk({ role: 'assistant', content: '' }, 'stop'),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    reasoning: 'Both lookups are independent.',
    calls: [
      { id: 'call_or_w1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_or_t2', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 174, outputTokens: 40, cacheHitInputTokens: 0, reasoningTokens: 7 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C, Tokyo: 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
