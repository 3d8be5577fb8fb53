import type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import { resolveOptions, type OpenAICompatibleModelOptions } from './resolve-options.ts'
import { streamChatCompletion } from './stream-chat-completion.ts'

export interface OpenAICompatibleModel extends LanguageModel {
  /** The resolved chat-completions URL requests go to. */
  readonly url: string
  stream(request: ModelRequest): AsyncGenerator<ModelStreamPart, void, undefined>
}

/**
 * A `LanguageModel` for OpenAI-compatible chat completions, with DeepSeek's conventions by default.
 * Options fall back to `DSH_BASE_URL`, `DSH_API_KEY` and `DSH_MODEL`; a missing key or model throws
 * here, not at the first request. `stream` yields text and reasoning deltas as they arrive and each
 * tool call as soon as it is complete; `step` runs the same stream and returns its `finish` response.
 * Every failure is a `ChatCompletionsError` with a stable `code`.
 * @example
 * const model = createOpenAICompatibleModel({ model: 'deepseek-chat' }) // key from DSH_API_KEY
 * const { message } = await model.step({ messages: [userMessage('Hello')], tools: [] })
 */
export function createOpenAICompatibleModel(options?: OpenAICompatibleModelOptions): OpenAICompatibleModel {
  const resolved = resolveOptions(options)

  function stream(request: ModelRequest): AsyncGenerator<ModelStreamPart, void, undefined> {
    return streamChatCompletion(resolved, request)
  }

  async function step(request: ModelRequest): Promise<ModelResponse> {
    for await (const part of streamChatCompletion(resolved, request)) {
      if (part.type === 'finish') return part.response
    }
    // The stream ends with `finish` or throws; reaching here would be a bug in the assembler.
    throw new ChatCompletionsError({
      code: 'INCOMPLETE_STREAM',
      message: 'the stream ended without a finish part',
    })
  }

  return Object.freeze({
    provider: resolved.provider,
    modelId: resolved.model,
    url: resolved.url,
    step,
    stream,
  })
}
