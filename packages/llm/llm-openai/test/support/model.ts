import type { ModelRequest, ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { userMessage } from '@deepseek-ai/dsh-llm'
import {
  createOpenAICompatibleModel,
  type OpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
} from '@deepseek-ai/dsh-llm-openai'
import type { ReplayServer } from '../../../../../test-support/replay-server.ts'

/** A model pointed at the replay server, with no environment variables involved. */
export function modelFor(
  server: ReplayServer,
  options: OpenAICompatibleModelOptions = {},
): OpenAICompatibleModel {
  return createOpenAICompatibleModel({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test-key',
    model: 'deepseek-chat',
    env: {},
    ...options,
  })
}

export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
}

export const simpleRequest: ModelRequest = { messages: [userMessage('Hi')], tools: [] }

export async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

/** Collects parts until the stream throws; returns both. */
export async function collectUntilError(
  stream: AsyncIterable<ModelStreamPart>,
): Promise<{ parts: ModelStreamPart[]; error: unknown }> {
  const parts: ModelStreamPart[] = []
  try {
    for await (const part of stream) parts.push(part)
  } catch (error) {
    return { parts, error }
  }
  throw new Error(`the stream ended without an error after ${parts.length} parts`)
}

/** The part types, without the tool-input parts (display-only, tested on their own). */
export function callPartTypes(parts: readonly ModelStreamPart[]): string[] {
  return parts.map((p) => p.type).filter((type) => !type.startsWith('tool-input-'))
}
