import { localRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

const chunk = (delta: object, finish: string | null = null) =>
  data({
    id: 'chatcmpl-ce4e8629-313a-41e7-89a3-6166bca00b2c',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    created: 1_780_000_900,
    model: 'Qwen/Qwen3-0.6B',
    system_fingerprint: null,
    object: 'chat.completion.chunk',
    usage: null,
  })

export const transcript: Transcript = {
  id: 'dynamo-shared-index',
  provider: 'NVIDIA Dynamo',
  quirk: 'parallel calls, each whole in one delta, all at `index: 0` with different ids',
  sources: ['https://github.com/ai-dynamo/dynamo/pull/4723'],
  baseUrl: 'http://localhost:8001/v1',
  model: 'Qwen/Qwen3-0.6B',
  rules: localRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '' }),
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: 'call-3f0c1e6a-8b2d-4e7f-9a10-b2c3d4e5f6a7',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }),
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: 'call-7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
              type: 'function',
              function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
            },
          ],
        }),
        chunk({}, 'tool_calls'),
        data({
          id: 'chatcmpl-ce4e8629-313a-41e7-89a3-6166bca00b2c',
          choices: [],
          created: 1_780_000_900,
          model: 'Qwen/Qwen3-0.6B',
          object: 'chat.completion.chunk',
          usage: { prompt_tokens: 199, completion_tokens: 54, total_tokens: 253 },
        }),
        DONE,
      ],
      holdAfter: 2,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: 'Paris is at 18°C, Tokyo at 09:30.' }),
        chunk({}, 'stop'),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call-3f0c1e6a-8b2d-4e7f-9a10-b2c3d4e5f6a7', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call-7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 199, outputTokens: 54 },
  },
  agent: { reason: 'completed', text: 'Paris is at 18°C, Tokyo at 09:30.', requests: 2 },
  reference: {
    kind: 'differs',
    because:
      'the official client merges both calls into one (same index): the last id and name, the arguments concatenated',
    assembles: {
      calls: [
        {
          id: 'call-7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
          name: 'get_time',
          arguments: '{"city":"Paris"}{"city":"Tokyo"}',
        },
      ],
      text: '',
      usage: [199, 54],
    },
  },
}
