import { vllmRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'
import { vllmAnswer, vllmChunk } from './vllm-shared.ts'

const id = 'chatcmpl-0f1e2d3c4b5a69788796a5b4c3d2e1f0'

export const transcript: Transcript = {
  id: 'vllm-reasoning-tool-calls',
  provider: 'vLLM',
  quirk:
    'reasoning parser output in `reasoning_content`, tool-call continuation deltas without id, the last argument piece on the chunk that carries finish_reason, a usage chunk with `choices: []`; the reasoning goes back (it was returned), never as an empty string',
  sources: [
    'https://docs.vllm.ai/en/latest/features/reasoning_outputs.html',
    'https://docs.vllm.ai/en/latest/features/tool_calling.html',
    'https://github.com/vllm-project/vllm/pull/36944 (the last token and finish_reason in one chunk)',
    'https://github.com/vllm-project/vllm/pull/19662 (the stream chunks)',
  ],
  baseUrl: 'http://localhost:8000/v1',
  model: 'Qwen/Qwen3-32B',
  rules: vllmRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        vllmChunk(id, { role: 'assistant', content: '' }),
        vllmChunk(id, { reasoning_content: 'The user wants two things' }),
        vllmChunk(id, { reasoning_content: ': weather and time.' }),
        vllmChunk(id, {
          tool_calls: [
            {
              id: 'chatcmpl-tool-a1b2c3d4e5',
              type: 'function',
              index: 0,
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        }),
        vllmChunk(id, { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
        vllmChunk(id, { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        vllmChunk(id, {
          tool_calls: [
            {
              id: 'chatcmpl-tool-f6e5d4c3b2',
              type: 'function',
              index: 1,
              function: { name: 'get_time', arguments: '' },
            },
          ],
        }),
        vllmChunk(id, { tool_calls: [{ index: 1, function: { arguments: '{"city": "To' } }] }),
        vllmChunk(id, { tool_calls: [{ index: 1, function: { arguments: 'kyo"}' } }] }, 'tool_calls'),
        data({
          id,
          object: 'chat.completion.chunk',
          created: 1_780_000_702,
          model: 'Qwen/Qwen3-32B',
          choices: [],
          usage: { prompt_tokens: 201, total_tokens: 262, completion_tokens: 61 },
        }),
        DONE,
      ],
      holdAfter: 6,
    },
    { kind: 'sse', pieces: vllmAnswer(id, 'Paris: 18°C. Tokyo: 09:30.') },
  ],
  expected: {
    kind: 'ok',
    reasoning: 'The user wants two things: weather and time.',
    calls: [
      { id: 'chatcmpl-tool-a1b2c3d4e5', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'chatcmpl-tool-f6e5d4c3b2', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 201, outputTokens: 61 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C. Tokyo: 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
