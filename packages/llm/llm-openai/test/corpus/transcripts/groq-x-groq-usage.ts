import { groqRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Groq: every delta carries `tool_calls: []` until a call comes, each call arrives whole in one
// delta, reasoning (reasoning_format "parsed") in `reasoning`, and the usage only under
// `x_groq.usage` on the last chunk (no `usage` field).
const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
  data({
    id: 'chatcmpl-7f1d0c52-9b3e-4a61-8e2f-c4d5b6a7e8f9',
    object: 'chat.completion.chunk',
    created: 1_780_000_500,
    model: 'openai/gpt-oss-120b',
    system_fingerprint: 'fp_9a4b7c2d1e',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  })

export const transcript: Transcript = {
  id: 'groq-x-groq-usage',
  provider: 'Groq',
  quirk:
    'usage only under `x_groq.usage`, `tool_calls: []` on every delta, reasoning in `reasoning`; `reasoning_content` in a request is a 400',
  sources: [
    'https://github.com/vercel/ai/issues/1651 (usage under x_groq)',
    'https://github.com/Portkey-AI/gateway/issues/1338 (the chunk shape, tool_calls: [])',
    'https://github.com/tashfeenahmed/freellmapi/issues/1070 (reasoning_content refused)',
    'https://console.groq.com/docs/reasoning (reasoning_format parsed: `reasoning`)',
  ],
  baseUrl: 'https://api.groq.com/openai/v1',
  model: 'openai/gpt-oss-120b',
  rules: groqRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '', tool_calls: [] }, null, {
          x_groq: { id: 'req_01k0groq5xq' },
        }),
        chunk({ reasoning: 'Two lookups, ', tool_calls: [] }),
        chunk({ reasoning: 'in parallel.', tool_calls: [] }),
        chunk({
          tool_calls: [
            {
              id: 'fc_0b1e4a7d',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              index: 0,
            },
          ],
        }),
        chunk({
          tool_calls: [
            {
              id: 'fc_5c8f2e91',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
              index: 1,
            },
          ],
        }),
        chunk({}, 'tool_calls', {
          x_groq: {
            id: 'req_01k0groq5xq',
            usage: {
              queue_time: 0.051,
              prompt_tokens: 188,
              prompt_time: 0.009,
              completion_tokens: 47,
              completion_time: 0.041,
              total_tokens: 235,
              total_time: 0.05,
            },
          },
        }),
        DONE,
      ],
      holdAfter: 4,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '', tool_calls: [] }),
        chunk({ reasoning: 'Compose.', tool_calls: [] }),
        chunk({ content: 'Paris 18°C, Tokyo 09:30.', tool_calls: [] }),
        chunk({}, 'stop', {
          x_groq: {
            id: 'req_01k0groq6yr',
            usage: { prompt_tokens: 260, completion_tokens: 12, total_tokens: 272 },
          },
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    reasoning: 'Two lookups, in parallel.',
    calls: [
      { id: 'fc_0b1e4a7d', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'fc_5c8f2e91', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 188, outputTokens: 47 },
  },
  agent: { reason: 'completed', text: 'Paris 18°C, Tokyo 09:30.', requests: 2 },
  reference: {
    kind: 'differs',
    because: 'the official client reads no usage: Groq reports it only under x_groq',
    assembles: {
      calls: [
        { id: 'fc_0b1e4a7d', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'fc_5c8f2e91', name: 'get_time', arguments: '{"city":"Tokyo"}' },
      ],
      text: '',
      usage: [0, 0],
    },
  },
}
