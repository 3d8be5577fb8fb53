import { mistralRules } from '../request-rules.ts'
import type { Transcript } from '../transcript.ts'
import { steps } from './mistral-strict-fields.ts'

export const transcript: Transcript = {
  id: 'mistral-422-message-object',
  provider: 'Mistral',
  quirk:
    'a harness that forces `includeUsage: true`: the 422’s `message` is an object (`{ detail: [...] }`), and its reason must reach the error message',
  sources: [
    'https://github.com/nomtek/mistralai_client_dart/issues/44',
    'https://github.com/Gage-Technologies/mistral-go/issues/3',
  ],
  baseUrl: 'https://api.mistral.ai/v1',
  model: 'mistral-large-latest',
  options: { includeUsage: true },
  rules: mistralRules,
  steps,
  expected: {
    kind: 'error',
    code: 'BAD_REQUEST',
    retryable: false,
    message: 'body.stream_options: Extra inputs are not permitted',
    calls: [],
  },
  agent: { reason: 'error', code: 'BAD_REQUEST', requests: 1 },
  reference: {
    kind: 'throws',
    message: '422 status code (no body)',
    because: 'the official client throws the 422 but none of its reason: it reads only an `error` key',
  },
}
