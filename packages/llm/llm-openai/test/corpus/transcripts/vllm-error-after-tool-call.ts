import { vllmRules } from '../request-rules.ts'
import { data, type Transcript } from '../transcript.ts'
import { vllmChunk } from './vllm-shared.ts'

const id = 'chatcmpl-9a8b7c6d5e4f30211f0e9d8c7b6a5948'

export const transcript: Transcript = {
  id: 'vllm-error-after-tool-call',
  provider: 'vLLM',
  quirk:
    'the engine fails after the first call is complete: `{"error": {object, message, type: "InternalServerError", code: 500}}`; the complete call was yielded (and ran), the stream fails retryably, nothing is retried since a call started',
  sources: [
    'https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/serving_engine.py (create_streaming_error_response)',
    'https://github.com/vllm-project/vllm/pull/40986 (a streaming 500 error before [DONE])',
  ],
  baseUrl: 'http://localhost:8000/v1',
  model: 'Qwen/Qwen3-32B',
  rules: vllmRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        vllmChunk(id, { role: 'assistant', content: '' }),
        vllmChunk(id, {
          tool_calls: [
            {
              id: 'chatcmpl-tool-4b1f7e2a9c',
              type: 'function',
              index: 0,
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        }),
        vllmChunk(id, { tool_calls: [{ index: 0, function: { arguments: '{"city": "Paris"}' } }] }),
        vllmChunk(id, {
          tool_calls: [
            {
              id: 'chatcmpl-tool-8d3c6a0e5b',
              type: 'function',
              index: 1,
              function: { name: 'get_time', arguments: '' },
            },
          ],
        }),
        data({
          error: {
            object: 'error',
            message: 'EngineCore encountered an issue. See stack trace (above) for the root cause.',
            type: 'InternalServerError',
            param: null,
            code: 500,
          },
        }),
      ],
      holdAfter: 3,
    },
  ],
  expected: {
    kind: 'error',
    code: 'SERVER_ERROR',
    retryable: true,
    message: 'EngineCore encountered an issue',
    calls: [{ id: 'chatcmpl-tool-4b1f7e2a9c', name: 'get_weather', arguments: '{"city": "Paris"}' }],
  },
  agent: { reason: 'error', code: 'SERVER_ERROR', requests: 1 },
  reference: {
    kind: 'throws',
    message: 'EngineCore encountered an issue',
    because: 'the official client raises the in-stream error object too',
  },
}
