import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Together: a `text` field and a `seed` on each choice, `token_id` in the delta, and the usage on
// the finish chunk itself (no separate usage chunk).
const chunk = (delta: object, text: string, finish: string | null = null, usage: object | null = null) =>
  data({
    id: 'oBUtX7R-62bZhn-9801a22f6ad243dc',
    object: 'chat.completion.chunk',
    created: 1_758_039_022,
    choices: [
      {
        index: 0,
        text,
        logprobs: null,
        finish_reason: finish,
        seed: finish === null ? null : 8_817_472_836_582_313_000,
        delta,
      },
    ],
    model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    usage,
  })

export const transcript: Transcript = {
  id: 'together-text-field',
  provider: 'Together AI',
  quirk: '`text` and `seed` on each choice, `token_id` in the delta, the usage on the finish chunk',
  sources: [
    'https://github.com/llamastack/llama-stack/tree/main/tests/integration/recordings/responses (894fdacb1cfa.json, 7550dd0d24bc.json: recorded api.together.xyz streams)',
    'https://docs.together.ai/docs/function-calling',
  ],
  baseUrl: 'https://api.together.xyz/v1',
  model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  rules: bearerRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk({ token_id: null, role: 'assistant', content: null, tool_calls: null }, ''),
        chunk(
          {
            token_id: null,
            role: null,
            content: null,
            tool_calls: [
              {
                index: 0,
                id: 'call_jy63yt7kp8hfof3sy4pim94o',
                type: 'function',
                function: { name: 'get_weather', arguments: '' },
              },
            ],
          },
          '',
        ),
        chunk(
          {
            token_id: null,
            role: null,
            content: null,
            tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }],
          },
          '',
        ),
        chunk(
          {
            token_id: null,
            role: null,
            content: null,
            tool_calls: [
              {
                index: 1,
                id: 'call_4kq0x1v7m2n9b8c3z5a6s0d1',
                type: 'function',
                function: { name: 'get_time', arguments: '' },
              },
            ],
          },
          '',
        ),
        chunk(
          {
            token_id: null,
            role: null,
            content: null,
            tool_calls: [{ index: 1, function: { arguments: '{"city":"Tokyo"}' } }],
          },
          '',
        ),
        chunk({ token_id: 128008, role: 'assistant', content: '', tool_calls: null }, '', 'tool_calls', {
          prompt_tokens: 221,
          completion_tokens: 36,
          total_tokens: 257,
          cached_tokens: 0,
        }),
        DONE,
      ],
      holdAfter: 3,
    },
    {
      kind: 'sse',
      pieces: [
        chunk(
          { token_id: 791, role: 'assistant', content: 'Paris is 18°C', tool_calls: null },
          'Paris is 18°C',
        ),
        chunk(
          { token_id: 13, role: 'assistant', content: '; Tokyo is at 09:30.', tool_calls: null },
          '; Tokyo is at 09:30.',
        ),
        chunk({ token_id: 128009, role: 'assistant', content: '', tool_calls: null }, '', 'stop', {
          prompt_tokens: 290,
          completion_tokens: 14,
          total_tokens: 304,
        }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_jy63yt7kp8hfof3sy4pim94o', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_4kq0x1v7m2n9b8c3z5a6s0d1', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 221, outputTokens: 36 },
  },
  agent: { reason: 'completed', text: 'Paris is 18°C; Tokyo is at 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
