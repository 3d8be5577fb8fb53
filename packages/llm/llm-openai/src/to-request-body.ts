import { describeValue, type ModelRequest } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { ResolvedOptions } from './resolve-options.ts'
import { toWireMessages } from './to-wire-messages.ts'
import { toWireTools } from './to-wire-tools.ts'

/**
 * The JSON body of one streamed chat completion. Usage is requested in the stream
 * (`stream_options.include_usage`); no `tools` field is sent when there are none, since some
 * providers refuse an empty list.
 */
export function toRequestBody(request: ModelRequest, options: ResolvedOptions): Record<string, unknown> {
  if (typeof request !== 'object' || request === null) {
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `the request must be an object, got ${describeValue(request)}`,
    })
  }
  const tools = toWireTools(request.tools, options.strict)
  const extraStreamOptions = options.extraBody.stream_options
  return {
    ...options.extraBody,
    model: options.model,
    messages: toWireMessages(request.system, request.messages, options.reasoningReplay),
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    stream: true,
    stream_options: {
      ...(typeof extraStreamOptions === 'object' && extraStreamOptions !== null ? extraStreamOptions : {}),
      include_usage: true,
    },
  }
}
