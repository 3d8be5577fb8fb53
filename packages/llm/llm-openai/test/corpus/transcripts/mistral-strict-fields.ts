import { mistralRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Mistral: both calls complete in one delta, each with a distinct index (ids of 9 characters),
// and the usage on the finish chunk.
const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    id: 'b1c9e2f07a3d4e5f8a6b7c8d9e0f1a2b',
    object: 'chat.completion.chunk',
    created: 1_780_000_600,
    model: 'mistral-large-latest',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })

export const steps: Transcript['steps'] = [
  {
    kind: 'sse',
    pieces: [
      chunk({ role: 'assistant', content: '' }),
      chunk({
        tool_calls: [
          {
            id: 'Hk3bQ9mZp',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city": "Paris"}' },
            index: 0,
          },
          {
            id: 'Rt7vW2nXc',
            type: 'function',
            function: { name: 'get_time', arguments: '{"city": "Tokyo"}' },
            index: 1,
          },
        ],
      }),
      chunk({ content: '' }, 'tool_calls', { prompt_tokens: 140, total_tokens: 182, completion_tokens: 42 }),
      DONE,
    ],
    holdAfter: 1,
  },
  {
    kind: 'sse',
    pieces: [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'It is 18°C in Paris' }),
      chunk({ content: ' and 09:30 in Tokyo.' }),
      chunk({ content: '' }, 'stop', { prompt_tokens: 210, total_tokens: 226, completion_tokens: 16 }),
      DONE,
    ],
  },
]

export const transcript: Transcript = {
  id: 'mistral-strict-fields',
  provider: 'Mistral',
  quirk:
    'refuses every field it does not know with 422 `extra_forbidden` (`stream_options`, `reasoning_content`); usage arrives on the finish chunk anyway',
  sources: [
    'https://github.com/comet-ml/opik/pull/7385 (both calls complete in one delta, distinct indexes)',
    'https://github.com/nomtek/mistralai_client_dart/issues/44',
    'https://github.com/charmbracelet/crush/issues/1590',
    'https://docs.mistral.ai/capabilities/function_calling/',
  ],
  baseUrl: 'https://api.mistral.ai/v1',
  model: 'mistral-large-latest',
  rules: mistralRules,
  steps,
  expected: {
    kind: 'ok',
    calls: [
      { id: 'Hk3bQ9mZp', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'Rt7vW2nXc', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 140, outputTokens: 42 },
  },
  agent: { reason: 'completed', text: 'It is 18°C in Paris and 09:30 in Tokyo.', requests: 2 },
  reference: { kind: 'agrees' },
}
