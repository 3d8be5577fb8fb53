import { localRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

// Ollama's OpenAI compatibility as of 0.1.3x: `finish_reason: ""` on every chunk but the last,
// the role repeated on every delta, `system_fingerprint: "fp_ollama"`.
const chunk = (content: string, finish: string) =>
  data({
    id: 'chatcmpl-693',
    object: 'chat.completion.chunk',
    created: 1_715_427_619,
    model: 'mistral:latest',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }],
  })

export const transcript: Transcript = {
  id: 'ollama-empty-finish-reason',
  provider: 'Ollama',
  quirk: '`finish_reason: ""` on every chunk until the last (an empty string, not null): "not finished yet"',
  sources: ['https://github.com/ollama/ollama/issues/4357'],
  baseUrl: 'http://localhost:11434/v1',
  model: 'mistral:latest',
  rules: localRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        chunk(' I', ''),
        chunk(' have', ''),
        chunk(' no', ''),
        chunk(' tools', ''),
        chunk(' for that.', ''),
        chunk('', 'stop'),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    text: ' I have no tools for that.',
    calls: [],
    finishReason: 'stop',
    usage: { inputTokens: 0, outputTokens: 0 },
  },
  agent: { reason: 'completed', text: ' I have no tools for that.', requests: 1 },
  reference: { kind: 'agrees' },
}
