import { deepseekRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

const chunk = (delta: object, finish: string | null = null, usage?: object) =>
  data({
    id: 'c41f0a97-2e5d-4b8c-a6f3-9d0e1b2c3a4f',
    object: 'chat.completion.chunk',
    created: 1_780_000_200,
    model: 'deepseek-flash',
    system_fingerprint: 'fp_ds_v41_1017',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })

export const transcript: Transcript = {
  id: 'deepseek-insufficient-system-resource',
  provider: 'DeepSeek',
  quirk:
    'finish_reason `insufficient_system_resource`: the inference system ran out of resources and cut the answer short — an error (retryable), not a finished turn',
  sources: [
    'https://api-docs.deepseek.com/api/create-chat-completion (finish_reason: insufficient_system_resource)',
  ],
  baseUrl: 'https://api.deepseek.com',
  // No model named: DeepSeek's host has a default (DSH_MODEL is not needed there).
  model: 'deepseek-flash',
  defaultModel: true,
  rules: deepseekRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Let me check the weather in Pa' }),
        chunk({ content: '' }, 'insufficient_system_resource', {
          prompt_tokens: 210,
          completion_tokens: 9,
          total_tokens: 219,
        }),
        DONE,
      ],
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '' }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_00_Zp1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }),
        chunk({
          tool_calls: [
            {
              index: 1,
              id: 'call_01_Zp2',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({}, 'tool_calls', { prompt_tokens: 210, completion_tokens: 28, total_tokens: 238 }),
        DONE,
      ],
      holdAfter: 2,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: 'Paris is 18°C and Tokyo is at 09:30.' }),
        chunk({ content: '' }, 'stop', { prompt_tokens: 260, completion_tokens: 11, total_tokens: 271 }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'error',
    code: 'SERVER_ERROR',
    retryable: true,
    message: 'insufficient_system_resource',
    calls: [],
  },
  // The cut-short step is retried (nothing of it was recorded or started), then the turn runs.
  agent: { reason: 'completed', text: 'Paris is 18°C and Tokyo is at 09:30.', requests: 3 },
  reference: {
    kind: 'differs',
    because:
      'the official client returns the cut-off text as a finished completion (finish_reason "insufficient_system_resource")',
    assembles: { calls: [], text: 'Let me check the weather in Pa', usage: [210, 9] },
  },
}
