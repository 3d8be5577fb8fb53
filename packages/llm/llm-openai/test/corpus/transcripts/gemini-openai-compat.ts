import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Gemini's OpenAI compatibility: calls without `index`, all in one chunk, a thought signature in
// `extra_content.google`, and `finish_reason: "stop"` on a step that called tools.
const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    choices: [{ delta, finish_reason: finish, index: 0 }],
    created: 1_780_001_000,
    id: 'QWbnaNyTG6aLnvgPq8O2kQk',
    model: 'gemini-3-flash-preview',
    object: 'chat.completion.chunk',
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'gemini-openai-compat',
  provider: 'Gemini (OpenAI compatibility)',
  quirk:
    'tool calls without `index`, both in one chunk, with `extra_content.google.thought_signature`, and `finish_reason: "stop"` for a step that called tools',
  sources: [
    'https://github.com/googleapis/python-genai/issues/2868 (streaming finish_reason "stop" with tool calls)',
    'https://github.com/open-webui/computer/issues/224 (no index, extra_content.google.thought_signature)',
    'https://ai.google.dev/gemini-api/docs/openai',
  ],
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
  model: 'gemini-3-flash-preview',
  rules: bearerRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              extra_content: { google: { thought_signature: 'CsQBAdHtim8kX3J1c3QtYS1zaWduYXR1cmU=' } },
              function: { arguments: '{"city":"Paris"}', name: 'get_weather' },
              id: 'function-call-1418260231944934178',
              type: 'function',
            },
            {
              function: { arguments: '{"city":"Tokyo"}', name: 'get_time' },
              id: 'function-call-1418260231944934179',
              type: 'function',
            },
          ],
        }),
        chunk({ content: '', role: 'assistant' }, 'stop', {
          completion_tokens: 38,
          prompt_tokens: 127,
          total_tokens: 165,
        }),
        DONE,
      ],
      holdAfter: 0,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ content: 'Paris: 18°C. ', role: 'assistant' }),
        chunk({ content: 'Tokyo: 09:30.', role: 'assistant' }, 'stop', {
          completion_tokens: 9,
          prompt_tokens: 190,
          total_tokens: 199,
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'function-call-1418260231944934178', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'function-call-1418260231944934179', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 127, outputTokens: 38 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C. Tokyo: 09:30.', requests: 2 },
  reference: {
    kind: 'differs',
    because: 'without an index the official client drops the calls: its final completion has none',
    assembles: { calls: [], text: '', usage: [127, 38] },
  },
}
