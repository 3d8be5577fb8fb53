import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// OpenAI's chunk: the first delta names the role (content null, refusal null); each call's first
// delta has its index, id, type and name with empty arguments; the finish chunk has an empty
// delta; with `stream_options.include_usage` a last chunk has `choices: []` and the usage, and
// every chunk before it `usage: null`.
const chunk = (choices: object[], usage: object | null = null) =>
  data({
    id: 'chatcmpl-C9x2mQ7vR4tY8uB1nK3pL6sD0fG5h',
    object: 'chat.completion.chunk',
    created: 1_780_000_300,
    model: 'gpt-4.1-2025-04-14',
    service_tier: 'default',
    system_fingerprint: 'fp_b3f1157249',
    choices,
    usage,
  })
const choice = (delta: object, finish: string | null = null) => ({
  index: 0,
  delta,
  logprobs: null,
  finish_reason: finish,
})

export const toolStep = [
  chunk([choice({ role: 'assistant', content: null, refusal: null })]),
  chunk([
    choice({
      tool_calls: [
        {
          index: 0,
          id: 'call_3vKq9XcYbW2Lr7Tn',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    }),
  ]),
  chunk([choice({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] })]),
  chunk([choice({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Paris"}' } }] })]),
  chunk([
    choice({
      tool_calls: [
        {
          index: 1,
          id: 'call_8mPz1QeRsU4Vw6Xy',
          type: 'function',
          function: { name: 'get_time', arguments: '' },
        },
      ],
    }),
  ]),
  chunk([choice({ tool_calls: [{ index: 1, function: { arguments: '{"city": "Tokyo"}' } }] })]),
  chunk([choice({}, 'tool_calls')]),
  chunk([], {
    prompt_tokens: 96,
    completion_tokens: 51,
    total_tokens: 147,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }),
  DONE,
]

export const answerStep = (text: readonly string[]) => [
  chunk([choice({ role: 'assistant', content: '', refusal: null })]),
  ...text.map((piece) => chunk([choice({ content: piece })])),
  chunk([choice({}, 'stop')]),
  chunk([], {
    prompt_tokens: 160,
    completion_tokens: 14,
    total_tokens: 174,
    prompt_tokens_details: { cached_tokens: 0 },
  }),
  DONE,
]

export const transcript: Transcript = {
  id: 'openai-parallel-tool-calls',
  provider: 'OpenAI',
  quirk: 'the reference shape: parallel calls by index, empty finish delta, a usage chunk with `choices: []`',
  sources: [
    'https://platform.openai.com/docs/guides/function-calling#streaming',
    'https://platform.openai.com/docs/api-reference/chat-streaming/streaming',
  ],
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
  rules: bearerRules,
  steps: [
    { kind: 'sse', pieces: toolStep, holdAfter: 4 },
    { kind: 'sse', pieces: answerStep(['Paris: 18°C', ', Tokyo: 09:30.']) },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_3vKq9XcYbW2Lr7Tn', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_8mPz1QeRsU4Vw6Xy', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 96, outputTokens: 51, cacheHitInputTokens: 0, reasoningTokens: 0 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C, Tokyo: 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
