import { vllmRules } from '../request-rules.ts'
import type { Transcript } from '../transcript.ts'
import { transcript as vllm } from './vllm-reasoning-tool-calls.ts'

export const transcript: Transcript = {
  ...vllm,
  id: 'proxy-keeps-connection-open',
  provider: 'vLLM behind a reverse proxy',
  quirk:
    'the proxy holds the connection open after `data: [DONE]` (no end of the body): the answer is complete at [DONE], not when the connection closes',
  sources: [
    'https://github.com/agentscope-ai/agentscope-java/issues/2073 (completion delayed until upstream closes)',
    'https://github.com/vastsa/PI-Desktop/pull/217 (a reverse proxy holds the idle connection open)',
    'https://github.com/openai/openai-python/pull/3566 (bounded drain after [DONE])',
  ],
  rules: vllmRules,
  steps: vllm.steps.map((step) => (step.kind === 'sse' ? { ...step, keepOpen: true } : step)),
  reference: {
    kind: 'throws',
    message: 'Request was aborted.',
    because:
      'the official client keeps reading after [DONE] until the server closes, so it ends only when the test aborts it',
  },
}
