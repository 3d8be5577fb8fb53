import { bearerRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'
import { transcript as processing } from './openrouter-processing-comments.ts'

export const transcript: Transcript = {
  ...processing,
  id: 'openrouter-mid-stream-error',
  quirk:
    'an error after the model started, in a 200 stream: a chunk with `error: { code: 502, message }` and `finish_reason: "error"` — retryable, and retried since nothing started',
  sources: [
    'https://openrouter.ai/docs/api-reference/streaming (Handling Errors During Streaming)',
    'https://openrouter.ai/docs/api-reference/errors (502: the model is down or answered invalidly)',
  ],
  rules: bearerRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        ': OPENROUTER PROCESSING\n\n',
        data({
          id: 'gen-1780001400-Ab1Cd2Ef3Gh4Ij5Kl6Mn',
          provider: 'Fireworks',
          model: 'deepseek/deepseek-v4-pro',
          object: 'chat.completion.chunk',
          created: 1_780_001_400,
          choices: [
            {
              index: 0,
              delta: { role: 'assistant', content: 'Let me ' },
              finish_reason: null,
              native_finish_reason: null,
              logprobs: null,
            },
          ],
        }),
        data({
          id: 'gen-1780001400-Ab1Cd2Ef3Gh4Ij5Kl6Mn',
          object: 'chat.completion.chunk',
          created: 1_780_001_400,
          model: 'deepseek/deepseek-v4-pro',
          provider: 'Fireworks',
          error: { code: 502, message: 'Provider returned error', metadata: { provider_name: 'Fireworks' } },
          choices: [
            { index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error' },
          ],
        }),
        DONE,
      ],
    },
    ...processing.steps,
  ],
  expected: {
    kind: 'error',
    code: 'SERVER_ERROR',
    retryable: true,
    message: 'Provider returned error',
    calls: [],
  },
  agent: { reason: 'completed', text: 'Paris: 18°C, Tokyo: 09:30.', requests: 3 },
  reference: {
    kind: 'throws',
    message: 'Provider returned error',
    because: 'the official client raises the in-stream error object too',
  },
}
