import { describeValue, type ModelRequest } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { ResolvedOptions } from './resolve-options.ts'
import { toWireMessages } from './to-wire-messages.ts'
import { toWireToolChoice } from './to-wire-tool-choice.ts'
import { toWireTools } from './to-wire-tools.ts'

/** Fields the adapter writes from the request; `providerOptions` cannot set them. */
const OWNED_FIELDS = ['model', 'messages', 'tools', 'tool_choice', 'stream']

/** `request.providerOptions[provider]`: more body fields for this request, checked. */
function requestFields(request: ModelRequest, provider: string): Readonly<Record<string, unknown>> {
  const all: unknown = request.providerOptions
  if (all === undefined) return {}
  if (typeof all !== 'object' || all === null || Array.isArray(all))
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `request.providerOptions must be an object keyed by provider, got ${describeValue(all)}`,
    })
  const own: unknown = (all as Record<string, unknown>)[provider]
  if (own === undefined) return {}
  if (typeof own !== 'object' || own === null || Array.isArray(own))
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `request.providerOptions["${provider}"] must be an object of body fields, got ${describeValue(own)}`,
    })
  for (const field of OWNED_FIELDS) {
    if (Object.prototype.hasOwnProperty.call(own, field))
      throw new ChatCompletionsError({
        code: 'INVALID_REQUEST',
        message: `request.providerOptions["${provider}"] must not set "${field}": the adapter writes it from the request`,
      })
  }
  return own as Record<string, unknown>
}

/**
 * The JSON body of one streamed chat completion. Usage is requested in the stream
 * (`stream_options.include_usage`) unless `includeUsage` is off; no `stream_options` field at all
 * is sent then (unless `extraBody` has one), and no `tools` field when there are none: some
 * providers refuse an empty list, Mistral refuses `stream_options`. `request.toolChoice` becomes
 * `tool_choice` (see `toWireToolChoice`); the fields of `request.providerOptions[provider]` join the
 * body over `extraBody`'s.
 */
export function toRequestBody(request: ModelRequest, options: ResolvedOptions): Record<string, unknown> {
  if (typeof request !== 'object' || request === null) {
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: `the request must be an object, got ${describeValue(request)}`,
    })
  }
  const tools = toWireTools(request.tools, options.strict)
  const toolChoice = toWireToolChoice(request, options)
  const fields = requestFields(request, options.provider)
  const extra = fields.stream_options ?? options.extraBody.stream_options
  const streamOptions = {
    ...(typeof extra === 'object' && extra !== null ? extra : {}),
    ...(options.includeUsage ? { include_usage: true } : {}),
  }
  return {
    ...options.extraBody,
    ...fields,
    model: options.model,
    messages: toWireMessages(request.system, request.messages, {
      reasoningReplay: options.reasoningReplay,
      reasoningField: options.reasoningField,
      toolResultImages: options.toolResultImages,
      audioInput: options.audioInput,
    }),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    stream: true,
    ...(Object.keys(streamOptions).length > 0 ? { stream_options: streamOptions } : {}),
  }
}
