import type { LanguageModelV3 } from '@ai-sdk/provider'

/**
 * What the bridge does with audio blocks (T72):
 * - `file`: a user message's audio is a `file` part with its audio media type and base64 data
 *   (`LanguageModelV3FilePart`); a tool result's audio is named in the result and sent as such a
 *   part in a user message right after the step's tool messages, because the AI SDK providers do
 *   not pass audio inside a tool result (`@ai-sdk/openai`'s chat model writes a tool result's
 *   content as JSON text, `@ai-sdk/anthropic` drops a non-PDF file part with a warning). Audio of a
 *   media type outside `audioMediaTypes` is its stand-in instead;
 * - `text`: each audio block is its stand-in text, `[audio (audio/wav), N bytes, not shown]`.
 */
export type AiSdkAudio = 'file' | 'text'

/** How one prompt writes audio: the mode, and the media types sent as files (`undefined`: any). */
export interface AudioPolicy {
  readonly mode: AiSdkAudio
  readonly mediaTypes: ReadonlySet<string> | undefined
}

/** OpenAI's audio models, the ones that take `input_audio` (https://platform.openai.com/docs/guides/audio). */
const OPENAI_AUDIO_MODEL = /(^|[-_/.])audio([-_/.]|$)/i

/** The audio types `@ai-sdk/openai`'s chat model writes as `input_audio` (wav, mp3); it refuses others. */
const OPENAI_CHAT_AUDIO: readonly string[] = ['audio/wav', 'audio/mp3', 'audio/mpeg']

/** A media type without its parameters, lower-cased: what `audioMediaTypes` is compared with. */
export const baseMediaType = (mediaType: string): string => mediaType.split(';', 1)[0]!.trim().toLowerCase()

/** How `toPrompt` writes audio (T72); see {@link AiSdkAudio}. Default `text`. */
export interface PromptOptions {
  readonly audio?: AiSdkAudio
  /** The audio media types sent as files in `file` mode (any when absent); others are their stand-in. */
  readonly audioMediaTypes?: readonly string[]
}

/** The policy one prompt is written with. */
export function audioPolicy(options: PromptOptions): AudioPolicy {
  const types = options.audioMediaTypes
  return {
    mode: options.audio ?? 'text',
    mediaTypes: types === undefined ? undefined : new Set(types.map(baseMediaType)),
  }
}

/**
 * The prompt options of a model: `file` (wav and mp3 only) for `@ai-sdk/openai`'s chat-completions
 * model of an audio model, which writes those `file` parts as `input_audio`; `text` for every other
 * provider, none of which is documented here to take audio (Anthropic's Messages API takes none;
 * OpenAI's Responses API has no audio input part). `fromAiSdk`'s options win.
 */
export function promptOptionsFor(
  model: Pick<LanguageModelV3, 'provider' | 'modelId'>,
  options: PromptOptions,
): PromptOptions {
  const chat = model.provider === 'openai.chat'
  const audio = options.audio ?? (chat && OPENAI_AUDIO_MODEL.test(model.modelId) ? 'file' : 'text')
  const types = options.audioMediaTypes ?? (chat ? OPENAI_CHAT_AUDIO : undefined)
  return Object.freeze({
    audio,
    ...(types === undefined ? {} : { audioMediaTypes: Object.freeze([...types]) }),
  })
}
