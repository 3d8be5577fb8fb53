import { deepseekRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    id: '2b7d9e41-6c3a-4f0e-8d2b-5a1c9e7f3b6d',
    object: 'chat.completion.chunk',
    created: 1_780_000_100,
    model: 'deepseek-v4-pro',
    system_fingerprint: 'fp_ds_v4_0815',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'deepseek-empty-reasoning',
  provider: 'DeepSeek',
  quirk:
    'thinking mode calls tools with no reasoning at all; the next request still needs `reasoning_content` on that message (an empty string), or DeepSeek answers 400',
  sources: [
    'https://github.com/deepseek-ai/deepseek-harness/discussions/739',
    'https://github.com/deepseek-ai/deepseek-harness/discussions/1850',
    'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
  ],
  baseUrl: 'https://api.deepseek.com/v1',
  model: 'deepseek-v4-pro',
  rules: deepseekRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: null, reasoning_content: null }),
        chunk({
          content: null,
          reasoning_content: null,
          tool_calls: [
            {
              index: 0,
              id: 'call_00_Wx3qL',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }),
        chunk({
          content: null,
          reasoning_content: null,
          tool_calls: [
            {
              index: 1,
              id: 'call_01_Hn8vR',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({ content: null }, 'tool_calls', {
          prompt_tokens: 300,
          completion_tokens: 31,
          total_tokens: 331,
        }),
        DONE,
      ],
      holdAfter: 2,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '', reasoning_content: 'Done.' }),
        chunk({ content: 'Paris: 18°C. Tokyo: 09:30.', reasoning_content: null }),
        chunk({ content: '' }, 'stop', { prompt_tokens: 360, completion_tokens: 12, total_tokens: 372 }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_00_Wx3qL', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_01_Hn8vR', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 300, outputTokens: 31 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C. Tokyo: 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
