import { vllmRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'
import { vllmChunk } from './vllm-shared.ts'

const id = 'chatcmpl-5e0c8b1f2a3d4c6e9f7a0b1c2d3e4f50'

export const transcript: Transcript = {
  id: 'vllm-bare-error-event',
  provider: 'vLLM',
  quirk:
    'a mid-stream failure sent as vLLM’s bare ErrorResponse `{"object":"error", message, type, code}` (no `error` key, no choices): a provider error, and a context-length one is not worth retrying',
  sources: [
    'https://github.com/modelscope/ms-agent/issues/489 (vLLM’s ErrorResponse body: object "error", type, code)',
    'https://github.com/block/goose/pull/8031 (vLLM’s mid-stream shape {"object":"error", "message": …})',
    'https://github.com/vllm-project/vllm/issues/20409 (the context-length message)',
  ],
  baseUrl: 'http://localhost:8000/v1',
  model: 'Qwen/Qwen3-32B',
  rules: vllmRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        vllmChunk(id, { role: 'assistant', content: '' }),
        data(
          '{"object":"error","message":"This model\'s maximum context length is 32768 tokens. However, you requested 36771 tokens (32675 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}',
        ),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'error',
    code: 'CONTEXT_LENGTH_EXCEEDED',
    retryable: false,
    message: "This model's maximum context length is 32768 tokens",
    calls: [],
  },
  // Not retryable: the model is asked once, not three times with the same too-long prompt.
  agent: { reason: 'error', code: 'CONTEXT_LENGTH_EXCEEDED', requests: 1 },
  reference: {
    kind: 'throws',
    message: 'chunk.choices is not iterable',
    because:
      'the official client crashes on the event (a TypeError): no `error` key for it to raise, the provider’s message lost',
  },
}
