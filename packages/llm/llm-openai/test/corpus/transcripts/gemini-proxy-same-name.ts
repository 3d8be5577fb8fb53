import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// A Gemini-to-OpenAI proxy that keys indices by function name: two calls of one tool share index 0.
const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    id: 'chatcmpl-gcp-8f2e4d6c',
    object: 'chat.completion.chunk',
    created: 1_780_001_100,
    model: 'gemini-3-pro-preview',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'gemini-proxy-same-name',
  provider: 'Gemini (proxy)',
  quirk:
    'two calls of the same tool share `index: 0` (indices keyed by function name), told apart only by their ids',
  sources: [
    'https://github.com/NousResearch/hermes-agent/pull/11863',
    'https://github.com/NousResearch/hermes-agent/pull/12930',
  ],
  baseUrl: 'http://127.0.0.1:7861/v1',
  model: 'gemini-3-pro-preview',
  rules: bearerRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: 'call_gem_paris',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_gem_tokyo',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({}, 'tool_calls', { prompt_tokens: 150, completion_tokens: 30, total_tokens: 180 }),
        DONE,
      ],
      holdAfter: 1,
    },
    {
      kind: 'sse',
      pieces: [chunk({ role: 'assistant', content: 'Paris 18°C, Tokyo 18°C.' }), chunk({}, 'stop'), DONE],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_gem_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_gem_tokyo', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 150, outputTokens: 30 },
  },
  agent: { reason: 'completed', text: 'Paris 18°C, Tokyo 18°C.', requests: 2 },
  reference: {
    kind: 'differs',
    because:
      'the official client merges the two calls at index 0 into one (the last id, both argument strings)',
    assembles: {
      calls: [{ id: 'call_gem_tokyo', name: 'get_weather', arguments: '{"city":"Paris"}{"city":"Tokyo"}' }],
      text: '',
      usage: [150, 30],
    },
  },
}
