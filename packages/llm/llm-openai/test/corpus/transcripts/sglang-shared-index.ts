import { localRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// SGLang: every parallel call at `index: 0`, the call's id repeated on each of its deltas.
const chunk = (delta: object, finish: string | null = null, usage: object | null = null) =>
  data({
    id: '3c2b1a09f8e7d6c5b4a3928170f6e5d4',
    object: 'chat.completion.chunk',
    created: 1_780_000_800,
    model: 'Qwen/Qwen3-8B',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, matched_stop: null }],
    usage,
  })
const call = (id: string, fn: object) => ({
  role: null,
  content: null,
  reasoning_content: null,
  tool_calls: [{ id, index: 0, type: 'function', function: fn }],
})

export const transcript: Transcript = {
  id: 'sglang-shared-index',
  provider: 'SGLang',
  quirk: 'parallel calls all at `index: 0`, told apart by their ids (repeated on every delta of a call)',
  sources: [
    'https://github.com/InternLM/lmdeploy/issues/3412 (SGLang’s deltas: index 0, id "0" then "1")',
    'https://github.com/sgl-project/sglang/issues/7117',
  ],
  baseUrl: 'http://127.0.0.1:30000/v1',
  model: 'Qwen/Qwen3-8B',
  rules: localRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ role: 'assistant', content: '', reasoning_content: null, tool_calls: null }),
        chunk(call('call_0a1b2c3d4e5f', { name: 'get_weather', arguments: '' })),
        chunk(call('call_0a1b2c3d4e5f', { arguments: '{"city": "Paris"}' })),
        chunk(call('call_6f7e8d9c0b1a', { name: 'get_time', arguments: '' })),
        chunk(call('call_6f7e8d9c0b1a', { arguments: '{"city": "Tokyo"}' })),
        chunk({ role: null, content: null, reasoning_content: null, tool_calls: null }, 'tool_calls'),
        data({
          id: '3c2b1a09f8e7d6c5b4a3928170f6e5d4',
          object: 'chat.completion.chunk',
          created: 1_780_000_800,
          model: 'Qwen/Qwen3-8B',
          choices: [],
          usage: {
            prompt_tokens: 233,
            total_tokens: 281,
            completion_tokens: 48,
            prompt_tokens_details: null,
          },
        }),
        DONE,
      ],
      holdAfter: 3,
    },
    {
      kind: 'sse',
      pieces: [
        chunk({
          role: 'assistant',
          content: 'Paris 18°C; Tokyo 09:30.',
          reasoning_content: null,
          tool_calls: null,
        }),
        chunk({ role: null, content: null, reasoning_content: null, tool_calls: null }, 'stop', {
          prompt_tokens: 300,
          total_tokens: 311,
          completion_tokens: 11,
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_0a1b2c3d4e5f', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_6f7e8d9c0b1a', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 233, outputTokens: 48 },
  },
  agent: { reason: 'completed', text: 'Paris 18°C; Tokyo 09:30.', requests: 2 },
  reference: {
    kind: 'differs',
    because:
      'the official client merges both calls into one (same index): the last id and name, both argument strings concatenated',
    assembles: {
      calls: [{ id: 'call_6f7e8d9c0b1a', name: 'get_time', arguments: '{"city": "Paris"}{"city": "Tokyo"}' }],
      text: '',
      usage: [233, 48],
    },
  },
}
