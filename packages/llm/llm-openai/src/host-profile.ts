/**
 * What a host is known to accept, read from the base URL's hostname. Each entry is what that
 * provider documents (or what its issue threads show it answering); everything else gets the
 * defaults of an OpenAI-compatible server. Every field is also an option, which wins.
 */
export interface HostProfile {
  /** A short name for the host family, or `undefined` for any other server. */
  readonly host: 'deepseek' | 'groq' | 'mistral' | 'azure' | 'openai' | undefined
  /** See `ReasoningReplay`. */
  readonly reasoningReplay: 'tool-turns' | 'returned' | 'never'
  /** The assistant-message field reasoning goes back in. */
  readonly reasoningField: 'reasoning_content' | 'reasoning'
  /** Whether `stream_options.include_usage` is sent. */
  readonly includeUsage: boolean
  /** Where images of tool results go (chat-completions tool messages hold text only). */
  readonly toolResultImages: 'user-message' | 'text'
  /** Whether audio goes as `input_audio` parts or as its stand-in text (see `AudioInput`). */
  readonly audioInput: 'input_audio' | 'text'
  /** The header the key travels in. */
  readonly keyHeader: 'authorization' | 'api-key'
}

/** DeepSeek's model with image understanding, per its models & pricing page. */
const DEEPSEEK_VISION_MODELS: ReadonlySet<string> = new Set(['deepseek-flash'])

/**
 * OpenAI's and Azure OpenAI's audio models, the ones that take `input_audio` in chat completions
 * (`gpt-4o-audio-preview`, `gpt-4o-mini-audio-preview`, `gpt-audio`, `gpt-audio-mini`, …): the
 * audio guide https://platform.openai.com/docs/guides/audio and Azure's audio completions
 * quickstart https://learn.microsoft.com/azure/ai-services/openai/audio-completions-quickstart.
 * Other models there refuse audio input; no other host is documented here to take it.
 */
const AUDIO_MODEL = /(^|[-_/.])audio([-_/.]|$)/i

const DEFAULT: HostProfile = {
  host: undefined,
  reasoningReplay: 'returned',
  reasoningField: 'reasoning_content',
  includeUsage: true,
  toolResultImages: 'user-message',
  audioInput: 'text',
  keyHeader: 'authorization',
}

/** `input_audio` for an audio model (OpenAI's and Azure's hosts only), else the stand-in. */
const audioFor = (model: string): HostProfile['audioInput'] =>
  AUDIO_MODEL.test(model) ? 'input_audio' : 'text'

function hostOf(hostname: string): HostProfile['host'] {
  const is = (domain: string): boolean => hostname === domain || hostname.endsWith(`.${domain}`)
  if (is('deepseek.com')) return 'deepseek'
  if (is('groq.com')) return 'groq'
  if (is('mistral.ai')) return 'mistral'
  if (is('openai.azure.com') || is('cognitiveservices.azure.com') || is('services.ai.azure.com'))
    return 'azure'
  if (hostname === 'api.openai.com') return 'openai'
  return undefined
}

/** The profile of the host `url` points at, for `model`. */
export function hostProfile(url: string, model: string): HostProfile {
  const host = hostOf(new URL(url).hostname)
  switch (host) {
    case 'deepseek':
      // Thinking mode (on by default) answers 400 when an assistant message of a tool-calling
      // stretch comes back without `reasoning_content`, also one whose reasoning was empty.
      return {
        ...DEFAULT,
        host,
        reasoningReplay: 'tool-turns',
        toolResultImages: DEEPSEEK_VISION_MODELS.has(model) ? 'user-message' : 'text',
      }
    case 'groq':
      // Groq refuses `reasoning_content` (400 "property 'reasoning_content' is unsupported"); its
      // reasoning models stream and take back `reasoning`.
      return { ...DEFAULT, host, reasoningField: 'reasoning' }
    case 'mistral':
      // Mistral refuses every field it does not know with 422 `extra_forbidden`:
      // `stream_options` and `reasoning_content` among them. Its streams end with usage anyway.
      return { ...DEFAULT, host, reasoningReplay: 'never', includeUsage: false }
    case 'azure':
      // Azure OpenAI takes the key in `api-key`; `Authorization: Bearer` is for Entra ID tokens.
      return { ...DEFAULT, host, keyHeader: 'api-key', audioInput: audioFor(model) }
    case 'openai':
      return { ...DEFAULT, host, audioInput: audioFor(model) }
    case undefined:
      return DEFAULT
    default: {
      const never: never = host
      return never
    }
  }
}
