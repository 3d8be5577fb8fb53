import { localRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Ollama's OpenAI compatibility (0.4–0.5): every call whole in one chunk, then a last chunk with
// `finish_reason: "stop"` although the step called tools.
const chunk = (delta: object, finish: string | null = null) =>
  data({
    id: 'chatcmpl-457',
    object: 'chat.completion.chunk',
    created: 1_739_386_062,
    model: 'llama3.1',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })

export const transcript: Transcript = {
  id: 'ollama-tool-calls-stop',
  provider: 'Ollama',
  quirk: 'both calls whole in one chunk, and the step ends with `finish_reason: "stop"`',
  sources: [
    'https://github.com/ollama/ollama/pull/7963 (streamed tool calls finished as "stop")',
    'https://github.com/BerriAI/litellm/issues/35663 (tool calls before the done chunk, finish "stop")',
  ],
  baseUrl: 'http://localhost:11434/v1',
  model: 'llama3.1',
  rules: localRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_u1w7v3ft',
              index: 0,
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_k9d2m4qz',
              index: 1,
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({ role: 'assistant', content: '' }, 'stop'),
        DONE,
      ],
      holdAfter: 0,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: 'Paris: 18°C, Tokyo: 09:30' }),
        chunk({ role: 'assistant', content: '' }, 'stop'),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_u1w7v3ft', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_k9d2m4qz', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 0, outputTokens: 0 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C, Tokyo: 09:30', requests: 2 },
  reference: { kind: 'agrees' },
}
