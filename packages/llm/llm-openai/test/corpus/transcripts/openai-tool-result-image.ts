import { bearerRules } from '../request-rules.ts'
import type { Transcript } from '../transcript.ts'
import { answerStep, toolStep } from './openai-parallel-tool-calls.ts'

export const transcript: Transcript = {
  id: 'openai-tool-result-image',
  provider: 'OpenAI',
  quirk:
    'a tool result with an image: tool messages carry text only (an image there is a 400), so the image goes in a user message right after the step’s tool messages',
  sources: [
    'https://platform.openai.com/docs/api-reference/chat/create (tool message content: text parts only)',
    'https://platform.openai.com/docs/guides/images-vision (image_url parts in user messages)',
  ],
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
  rules: bearerRules,
  toolImage: true,
  steps: [
    { kind: 'sse', pieces: toolStep, holdAfter: 4 },
    { kind: 'sse', pieces: answerStep(['The clock photo shows 09:30 in Tokyo; Paris is 18°C.']) },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_3vKq9XcYbW2Lr7Tn', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_8mPz1QeRsU4Vw6Xy', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 96, outputTokens: 51, cacheHitInputTokens: 0, reasoningTokens: 0 },
  },
  agent: { reason: 'completed', text: 'The clock photo shows 09:30 in Tokyo; Paris is 18°C.', requests: 2 },
  reference: { kind: 'agrees' },
}
