import { describeValue, type ModelRequest } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { ResolvedOptions } from './resolve-options.ts'
import { toWireMessages } from './to-wire-messages.ts'
import { toWireTools } from './to-wire-tools.ts'

/**
 * The JSON body of one streamed chat completion. Usage is requested in the stream
 * (`stream_options.include_usage`) unless `includeUsage` is off; no `stream_options` field at all
 * is sent then (unless `extraBody` has one), and no `tools` field when there are none: some
 * providers refuse an empty list, Mistral refuses `stream_options`.
 */
export function toRequestBody(request: ModelRequest, options: ResolvedOptions): Record<string, unknown> {
  if (typeof request !== 'object' || request === null) {
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `the request must be an object, got ${describeValue(request)}`,
    })
  }
  const tools = toWireTools(request.tools, options.strict)
  const extra = options.extraBody.stream_options
  const streamOptions = {
    ...(typeof extra === 'object' && extra !== null ? extra : {}),
    ...(options.includeUsage ? { include_usage: true } : {}),
  }
  return {
    ...options.extraBody,
    model: options.model,
    messages: toWireMessages(request.system, request.messages, {
      reasoningReplay: options.reasoningReplay,
      reasoningField: options.reasoningField,
      toolResultImages: options.toolResultImages,
    }),
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    stream: true,
    ...(Object.keys(streamOptions).length > 0 ? { stream_options: streamOptions } : {}),
  }
}
