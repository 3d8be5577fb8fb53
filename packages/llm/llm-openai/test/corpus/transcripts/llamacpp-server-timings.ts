import { localRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// llama.cpp's llama-server (--jinja): tool calls streamed with an id on the first delta, a
// `timings` object on the finish chunk, then the usage in a chunk with `choices: []`.
const base = {
  created: 1_780_001_200,
  id: 'chatcmpl-Lq1v0Xb7Yc3Zd9We2Rf4',
  model: 'gpt-3.5-turbo',
  system_fingerprint: 'b6200-5a0e3ef6',
  object: 'chat.completion.chunk',
}
const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
  data({ choices: [{ finish_reason: finish, index: 0, delta }], ...base, ...extra })

export const transcript: Transcript = {
  id: 'llamacpp-server-timings',
  provider: 'llama.cpp server',
  quirk:
    '`timings` on the finish chunk, the usage alone in a `choices: []` chunk, the call id only on its first delta',
  sources: [
    'https://github.com/ggml-org/llama.cpp/pull/12379 (streamed tool calls with --jinja)',
    'https://github.com/ggml-org/llama.cpp/pull/15444 (usage in a last chunk with empty choices)',
    'https://github.com/simonw/llm/pull/1507 (top-level timings on the final chunk)',
  ],
  baseUrl: 'http://localhost:8080/v1',
  model: 'qwen3',
  rules: localRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'pBxOOzZBvAt6RfLgJ5eBF4mTmK1lxmsy',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"' },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'city":"Paris"}' } }] }),
        chunk({
          tool_calls: [
            {
              index: 1,
              id: 'XMr0V9nC2rT1yoQm8Ge7eIbA6j5LhPwo',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({}, 'tool_calls', {
          timings: {
            prompt_n: 305,
            prompt_ms: 211.4,
            prompt_per_token_ms: 0.693,
            prompt_per_second: 1442.8,
            predicted_n: 49,
            predicted_ms: 612.9,
            predicted_per_token_ms: 12.5,
            predicted_per_second: 79.9,
          },
        }),
        data({
          choices: [],
          ...base,
          usage: { completion_tokens: 49, prompt_tokens: 305, total_tokens: 354 },
        }),
        DONE,
      ],
      holdAfter: 3,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: null }),
        chunk({ content: 'Paris 18°C · Tokyo 09:30' }),
        chunk({}, 'stop'),
        data({
          choices: [],
          ...base,
          usage: { completion_tokens: 9, prompt_tokens: 380, total_tokens: 389 },
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'pBxOOzZBvAt6RfLgJ5eBF4mTmK1lxmsy', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'XMr0V9nC2rT1yoQm8Ge7eIbA6j5LhPwo', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 305, outputTokens: 49 },
  },
  agent: { reason: 'completed', text: 'Paris 18°C · Tokyo 09:30', requests: 2 },
  reference: { kind: 'agrees' },
}
