import type { LanguageModelV3 } from '@ai-sdk/provider'
import {
  describeValue,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from '@deepseek-ai/dsh-llm'
import { promptOptionsFor, type AiSdkAudio } from './audio-mode.ts'
import { AiSdkError } from './errors.ts'
import { generateAiSdk } from './generate-ai-sdk.ts'
import { streamAiSdk } from './stream-ai-sdk.ts'
import type { AiSdkCallOptions } from './to-call-options.ts'

export interface FromAiSdkOptions {
  /**
   * Call options sent with every request (`maxOutputTokens`, `temperature`, `providerOptions`,
   * `toolChoice`, `headers`, …); the prompt, the tools and the abort signal come from the request.
   * Detached at construction.
   */
  readonly callOptions?: AiSdkCallOptions
  /** `LanguageModel.provider`; defaults to the AI SDK model's `provider` (`anthropic.messages`, …). */
  readonly provider?: string
  /**
   * What audio blocks become (T72): `file` parts or their stand-in text (see {@link AiSdkAudio}).
   * Default `file` for `@ai-sdk/openai`'s chat model of an audio model (`gpt-4o-audio-preview`, …),
   * else `text`.
   */
  readonly audio?: AiSdkAudio
  /**
   * The audio media types sent as files in `file` mode; others are their stand-in. Default for
   * `@ai-sdk/openai`'s chat model: `audio/wav`, `audio/mp3`, `audio/mpeg` (the ones it maps to
   * `input_audio`); else every audio type.
   */
  readonly audioMediaTypes?: readonly string[]
}

/** A dsh `LanguageModel` whose `stream` is an async generator (leave it early to cancel the call). */
export interface AiSdkLanguageModel extends LanguageModel {
  stream(request: ModelRequest): AsyncGenerator<ModelStreamPart, void, undefined>
}

const WHERE = 'fromAiSdk(languageModel, options)'

function invalid(code: 'INVALID_MODEL' | 'INVALID_OPTIONS', message: string): AiSdkError {
  return new AiSdkError({ code, message: `${WHERE}: ${message}` })
}

function checkModel(model: unknown): LanguageModelV3 {
  if (typeof model !== 'object' || model === null)
    throw invalid(
      'INVALID_MODEL',
      `languageModel must be an AI SDK language model, got ${describeValue(model)}`,
    )
  const version: unknown = (model as { specificationVersion?: unknown }).specificationVersion
  if (version !== 'v3') {
    const hint =
      version === 'v2'
        ? ' (an AI SDK 5 provider: upgrade it to the AI SDK 6 line, @ai-sdk/provider 3.x)'
        : version === 'v4'
          ? ' (the AI SDK 7 line, @ai-sdk/provider 4.x, which needs Node 22, is not supported yet)'
          : ''
    throw invalid(
      'INVALID_MODEL',
      `languageModel must implement LanguageModelV3 (specificationVersion "v3"), got ${describeValue(version)}${hint}`,
    )
  }
  const m = model as LanguageModelV3
  if (typeof m.doStream !== 'function' || typeof m.doGenerate !== 'function')
    throw invalid('INVALID_MODEL', 'languageModel must have doGenerate and doStream functions')
  if (typeof m.provider !== 'string' || typeof m.modelId !== 'string')
    throw invalid('INVALID_MODEL', 'languageModel must have string provider and modelId')
  return m
}

function checkCallOptions(callOptions: unknown): AiSdkCallOptions {
  if (callOptions === undefined) return {}
  if (typeof callOptions !== 'object' || callOptions === null || Array.isArray(callOptions))
    throw invalid(
      'INVALID_OPTIONS',
      `options.callOptions must be an object, got ${describeValue(callOptions)}`,
    )
  for (const owned of ['prompt', 'tools', 'abortSignal']) {
    if (Object.prototype.hasOwnProperty.call(callOptions, owned))
      throw invalid(
        'INVALID_OPTIONS',
        `options.callOptions must not set "${owned}": each request supplies it`,
      )
  }
  // Detached now (a shallow copy: values such as providerOptions are the caller's to keep stable).
  return Object.freeze({ ...(callOptions as AiSdkCallOptions) })
}

function checkAudio(options: FromAiSdkOptions): Pick<FromAiSdkOptions, 'audio' | 'audioMediaTypes'> {
  const { audio, audioMediaTypes } = options
  if (audio !== undefined && audio !== 'file' && audio !== 'text')
    throw invalid('INVALID_OPTIONS', `options.audio must be "file" or "text", got ${describeValue(audio)}`)
  if (
    audioMediaTypes !== undefined &&
    (!Array.isArray(audioMediaTypes) ||
      !audioMediaTypes.every((t) => typeof t === 'string' && /^audio\//i.test(t)))
  )
    throw invalid(
      'INVALID_OPTIONS',
      `options.audioMediaTypes must be an array of audio media types, got ${describeValue(audioMediaTypes)}`,
    )
  return {
    ...(audio === undefined ? {} : { audio }),
    ...(audioMediaTypes === undefined ? {} : { audioMediaTypes }),
  }
}

/**
 * Any AI SDK provider's language model (the `LanguageModelV3` interface of `@ai-sdk/provider` 3.x,
 * the AI SDK 6 line) as a dsh `LanguageModel`. `stream` yields text and reasoning deltas as they
 * come and each tool call the moment the provider completes it, so a loop may start it while the
 * model still writes (eager dispatch, T40); `step` uses `doGenerate`. Provider errors become an
 * `AiSdkError` with a stable code, `retryable` from the provider's own `isRetryable`, and
 * `retryAfterMs`; the request's signal aborts the call.
 * @example
 * const model = fromAiSdk(anthropic('claude-sonnet-4-5'))
 */
export function fromAiSdk(
  languageModel: LanguageModelV3,
  options: FromAiSdkOptions = {},
): AiSdkLanguageModel {
  const model = checkModel(languageModel)
  if (typeof options !== 'object' || options === null)
    throw invalid('INVALID_OPTIONS', `options must be an object, got ${describeValue(options)}`)
  const callOptions = checkCallOptions(options.callOptions)
  if (options.provider !== undefined && (typeof options.provider !== 'string' || options.provider === ''))
    throw invalid(
      'INVALID_OPTIONS',
      `options.provider must be a non-empty string, got ${describeValue(options.provider)}`,
    )
  const prompt = promptOptionsFor(model, checkAudio(options))
  const where = `${model.provider} ${model.modelId}`
  return Object.freeze({
    provider: options.provider ?? model.provider,
    modelId: model.modelId,
    step: (request: ModelRequest): Promise<ModelResponse> =>
      generateAiSdk(model, callOptions, request, where, prompt),
    stream: (request: ModelRequest) => streamAiSdk(model, callOptions, request, where, prompt),
  })
}
