import { describeValue, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import { hostProfile } from './host-profile.ts'

/** DeepSeek's API, the default endpoint. */
export const DEEPSEEK_BASE_URL = 'https://api.deepseek.com'

/** The model used on DeepSeek's hosts when neither `model` nor `DSH_MODEL` names one (DeepSeek's pricing page names it the model to use). */
export const DEEPSEEK_DEFAULT_MODEL = 'deepseek-flash'

/** Default for `timeoutMs`: the longest wait for the response headers or for the next body bytes. */
export const DEFAULT_TIMEOUT_MS = 300_000

/**
 * When assistant messages carry their reasoning back (in `reasoningField`). A "tool stretch" is the
 * part of the conversation between two user messages in which the model called a tool.
 * - `tool-turns` (default on DeepSeek's hosts, its documented rule): every assistant message of a
 *   tool stretch carries it, an empty string when the message has none (DeepSeek's thinking mode
 *   answers 400 when the field is missing there); elsewhere it is left out.
 * - `returned` (default elsewhere): only assistant messages of a tool stretch that hold reasoning the
 *   model returned carry it; never an empty string.
 * - `always`: every assistant message carries it (an empty string when it has none).
 * - `never`: no message carries it (default on Mistral's host, which refuses unknown fields).
 */
export type ReasoningReplay = 'tool-turns' | 'returned' | 'always' | 'never'

/** The assistant-message field reasoning goes back in: `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning` (Groq). */
export type ReasoningField = 'reasoning_content' | 'reasoning'

/**
 * Where the images of a tool result go. Chat-completions tool messages hold text only, so:
 * - `user-message` (default where the model accepts images): the tool message names each image, and
 *   one user message right after the step's tool messages carries them as `image_url` parts;
 * - `text`: each image becomes the note `[image omitted: <media type>]` (default on DeepSeek's
 *   hosts for models without image understanding).
 */
export type ToolResultImages = 'user-message' | 'text'

/**
 * What becomes of audio blocks (T72). Chat completions takes audio as `input_audio` parts
 * (`{ data, format: 'wav' | 'mp3' }`) in user messages only, and only audio models take them:
 * - `input_audio` (default for OpenAI's and Azure's audio models, `…audio…` in the model id): a user
 *   message's wav or mp3 audio is an `input_audio` part in place; a tool result's is named in the
 *   tool message and sent in the user message right after the step's tool messages (as images are);
 * - `text` (default everywhere else): each audio block is its stand-in text,
 *   `[audio (audio/wav), N bytes, not shown]`. Audio of another format is that text in both modes.
 */
export type AudioInput = 'input_audio' | 'text'

export interface OpenAICompatibleModelOptions {
  /** Bearer token. Else `DSH_API_KEY`; missing both is a `MISSING_API_KEY` error right here. */
  readonly apiKey?: string
  /** Else `DSH_BASE_URL`, else DeepSeek's `https://api.deepseek.com`. `/chat/completions` is appended. */
  readonly baseUrl?: string
  /**
   * Else `DSH_MODEL`; else, on DeepSeek's hosts, {@link DEEPSEEK_DEFAULT_MODEL}; missing all is a
   * `MISSING_MODEL` error.
   */
  readonly model?: string
  /** `LanguageModel.provider`; defaults to `deepseek` for DeepSeek's host, else `openai-compatible`. */
  readonly provider?: string
  /** Where the `DSH_*` variables are read; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Extra request headers (they win over the defaults, `Authorization` included). */
  readonly headers?: Readonly<Record<string, string>>
  /** See {@link ReasoningReplay}; default `tool-turns` on DeepSeek's hosts, `never` on Mistral's, else `returned`. */
  readonly reasoningReplay?: ReasoningReplay
  /** See {@link ReasoningField}; default `reasoning` on Groq's host, else `reasoning_content`. */
  readonly reasoningField?: ReasoningField
  /**
   * Sends `stream_options: { include_usage: true }`, so the stream ends with the token usage.
   * Default `true`, except on Mistral's host (it refuses the field with 422 and reports usage anyway).
   */
  readonly includeUsage?: boolean
  /** See {@link ToolResultImages}. */
  readonly toolResultImages?: ToolResultImages
  /** See {@link AudioInput}. */
  readonly audioInput?: AudioInput
  /**
   * Marks tools `strict: true` (provider-enforced schema adherence). Off by default: providers
   * refuse schemas outside their strict subset, and DeepSeek only offers it on its beta endpoint.
   */
  readonly strictTools?: boolean | ((tool: ToolSchema) => boolean)
  /** Sent as `max_tokens`. */
  readonly maxTokens?: number
  /** More request fields (`temperature`, `thinking`, `reasoning_effort`, …); cannot set the ones this adapter owns. */
  readonly extraBody?: Readonly<Record<string, unknown>>
  /** See {@link DEFAULT_TIMEOUT_MS}. */
  readonly timeoutMs?: number
  /** A `fetch` to use instead of the global one (proxies, instrumentation). */
  readonly fetch?: typeof fetch
  /**
   * Whether the server accepts `tool_choice` (default `true`). `false`: a request whose
   * `toolChoice` is anything but `auto` fails with `UNSUPPORTED_TOOL_CHOICE` naming it, before
   * anything is sent, rather than the server ignoring it.
   */
  readonly toolChoice?: boolean
}

export interface ResolvedOptions {
  readonly url: string
  readonly apiKey: string
  readonly model: string
  readonly provider: string
  readonly headers: Readonly<Record<string, string>>
  /** The header the key travels in: `authorization` (as a bearer token) or Azure's `api-key`. */
  readonly keyHeader: 'authorization' | 'api-key'
  readonly reasoningReplay: ReasoningReplay
  readonly reasoningField: ReasoningField
  readonly includeUsage: boolean
  readonly toolResultImages: ToolResultImages
  readonly audioInput: AudioInput
  readonly strict: (tool: ToolSchema) => boolean
  readonly maxTokens: number | undefined
  readonly extraBody: Readonly<Record<string, unknown>>
  readonly timeoutMs: number
  readonly fetch: typeof fetch
  readonly toolChoice: boolean
}

const OWNED_FIELDS = ['model', 'messages', 'tools', 'stream']
const REPLAY_MODES: readonly string[] = ['tool-turns', 'returned', 'always', 'never']
const REASONING_FIELDS: readonly string[] = ['reasoning_content', 'reasoning']
const IMAGE_MODES: readonly string[] = ['user-message', 'text']
const AUDIO_MODES: readonly string[] = ['input_audio', 'text']
const WHERE = 'createOpenAICompatibleModel(options)'

function invalid(message: string): ChatCompletionsError {
  return new ChatCompletionsError({ code: 'INVALID_OPTIONS', message: `${WHERE}: ${message}` })
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** An option, else its environment variable; empty strings count as unset. */
function pick(
  value: unknown,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
): string | undefined {
  if (value !== undefined) {
    if (typeof value !== 'string' || value === '')
      throw invalid(`options.${name} must be a non-empty string, got ${describeValue(value)}`)
    return value
  }
  const fromEnv = env[variable]
  return typeof fromEnv === 'string' && fromEnv !== '' ? fromEnv : undefined
}

function chatCompletionsUrl(baseUrl: string, source: string): string {
  let parsed: URL
  try {
    parsed = new URL(baseUrl)
  } catch {
    throw invalid(`${source} must be an absolute http(s) URL, got ${describeValue(baseUrl)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw invalid(`${source} must be an http(s) URL, got the protocol "${parsed.protocol}"`)
  if (parsed.username !== '' || parsed.password !== '')
    throw invalid(`${source} must not carry credentials; pass the key as apiKey / DSH_API_KEY`)
  const path = parsed.pathname.replace(/\/+$/, '')
  parsed.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`
  return parsed.href
}

/** An option that must be one of `allowed`, or `undefined` when not given. */
function oneOf<T extends string>(
  value: T | undefined,
  name: string,
  allowed: readonly string[],
): T | undefined {
  if (value === undefined) return undefined
  if (!allowed.includes(value))
    throw invalid(`options.${name} must be one of ${allowed.join(', ')}, got ${describeValue(value)}`)
  return value
}

function checkHeaders(headers: unknown): Readonly<Record<string, string>> {
  if (headers === undefined) return {}
  if (!isPlainObject(headers))
    throw invalid(`options.headers must be a plain object of strings, got ${describeValue(headers)}`)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string')
      throw invalid(`options.headers[${JSON.stringify(name)}] must be a string, got ${describeValue(value)}`)
    out[name] = value
  }
  return Object.freeze(out)
}

function checkExtraBody(extraBody: unknown): Readonly<Record<string, unknown>> {
  if (extraBody === undefined) return {}
  if (!isPlainObject(extraBody))
    throw invalid(`options.extraBody must be a plain object, got ${describeValue(extraBody)}`)
  for (const field of OWNED_FIELDS) {
    if (Object.prototype.hasOwnProperty.call(extraBody, field))
      throw invalid(`options.extraBody must not set "${field}": the adapter writes it from the request`)
  }
  // Detached now, so later changes to the caller's object cannot alter requests.
  let copy: Record<string, unknown>
  try {
    copy = JSON.parse(JSON.stringify(extraBody)) as Record<string, unknown>
  } catch (error) {
    throw invalid(
      `options.extraBody must be JSON data (${error instanceof Error ? error.message : describeValue(error)})`,
    )
  }
  return Object.freeze(copy)
}

function checkPositive(value: unknown, name: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw invalid(
      `options.${name} must be a positive ${integer ? 'integer' : 'number'}, got ${describeValue(value)}`,
    )
  }
  return value
}

/**
 * Reads the options once, with the `DSH_*` environment variables as fallbacks, and fails at once
 * on anything that would only surface as an HTTP error later (a missing key above all).
 */
export function resolveOptions(options: OpenAICompatibleModelOptions | undefined): ResolvedOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null))
    throw invalid(`options must be an object, got ${describeValue(options)}`)
  const o: OpenAICompatibleModelOptions = options ?? {}
  const env = o.env ?? process.env
  if (typeof env !== 'object' || env === null)
    throw invalid(`options.env must be an object, got ${describeValue(env)}`)

  const apiKey = pick(o.apiKey, 'apiKey', env, 'DSH_API_KEY')
  if (apiKey === undefined) {
    throw new ChatCompletionsError({
      code: 'MISSING_API_KEY',
      message: `${WHERE}: no API key: pass options.apiKey or set the DSH_API_KEY environment variable`,
    })
  }
  // A key that cannot travel in a header would fail every request with an obscure fetch error.
  if (!/^[\x21-\x7e]+$/.test(apiKey))
    throw invalid('the API key contains spaces, control or non-ASCII characters')
  const fromOption = o.baseUrl !== undefined
  const baseUrl = pick(o.baseUrl, 'baseUrl', env, 'DSH_BASE_URL') ?? DEEPSEEK_BASE_URL
  const url = chatCompletionsUrl(
    baseUrl,
    fromOption ? 'options.baseUrl' : env.DSH_BASE_URL ? 'DSH_BASE_URL' : 'the base URL',
  )
  const isDeepSeek = /(^|\.)deepseek\.com$/.test(new URL(url).hostname)
  const model = pick(o.model, 'model', env, 'DSH_MODEL') ?? (isDeepSeek ? DEEPSEEK_DEFAULT_MODEL : undefined)
  if (model === undefined) {
    throw new ChatCompletionsError({
      code: 'MISSING_MODEL',
      message: `${WHERE}: no model: pass options.model or set the DSH_MODEL environment variable (only DeepSeek's hosts have a default)`,
    })
  }
  const profile = hostProfile(url, model)
  if (o.provider !== undefined && (typeof o.provider !== 'string' || o.provider === ''))
    throw invalid(`options.provider must be a non-empty string, got ${describeValue(o.provider)}`)
  const provider = o.provider ?? (isDeepSeek ? 'deepseek' : 'openai-compatible')

  const reasoningReplay = oneOf(o.reasoningReplay, 'reasoningReplay', REPLAY_MODES) ?? profile.reasoningReplay
  const reasoningField = oneOf(o.reasoningField, 'reasoningField', REASONING_FIELDS) ?? profile.reasoningField
  const toolResultImages =
    oneOf(o.toolResultImages, 'toolResultImages', IMAGE_MODES) ?? profile.toolResultImages
  const audioInput = oneOf(o.audioInput, 'audioInput', AUDIO_MODES) ?? profile.audioInput
  if (o.includeUsage !== undefined && typeof o.includeUsage !== 'boolean')
    throw invalid(`options.includeUsage must be a boolean, got ${describeValue(o.includeUsage)}`)
  const strictTools = o.strictTools ?? false
  if (typeof strictTools !== 'boolean' && typeof strictTools !== 'function')
    throw invalid(
      `options.strictTools must be a boolean or a function of the tool, got ${describeValue(strictTools)}`,
    )
  if (o.toolChoice !== undefined && typeof o.toolChoice !== 'boolean')
    throw invalid(`options.toolChoice must be a boolean, got ${describeValue(o.toolChoice)}`)
  const fetchImpl = o.fetch ?? globalThis.fetch
  if (typeof fetchImpl !== 'function')
    throw invalid(`options.fetch must be a function, got ${describeValue(fetchImpl)}`)

  return Object.freeze({
    url,
    apiKey,
    model,
    provider,
    headers: checkHeaders(o.headers),
    keyHeader: profile.keyHeader,
    reasoningReplay,
    reasoningField,
    includeUsage: o.includeUsage ?? profile.includeUsage,
    toolResultImages,
    audioInput,
    strict: typeof strictTools === 'function' ? strictTools : () => strictTools,
    maxTokens: checkPositive(o.maxTokens, 'maxTokens', true),
    extraBody: checkExtraBody(o.extraBody),
    timeoutMs: checkPositive(o.timeoutMs, 'timeoutMs', false) ?? DEFAULT_TIMEOUT_MS,
    fetch: fetchImpl,
    toolChoice: o.toolChoice ?? true,
  })
}
