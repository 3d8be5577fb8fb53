import { isAbsolute } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod/v4'
import type { JsonObject, LanguageModel, ProviderOptions } from '@deepseek-ai/dsh-llm'

// What the plugin answers when a server asks the client (T65): elicitation (a person), sampling (a
// model) and roots (the workspace). Each is declared to servers only when the harness configured it.

/** The call a server's request came in during, when the plugin can tell (see README, "Which call"). */
export interface McpAskingCall {
  readonly callId: string
  /** The tool's name in the registry (`mcp__server__tool`). */
  readonly toolName: string
}

/** What the elicitation handler is asked: an MCP `elicitation/create`, with where it came from. */
export interface McpElicitationRequest {
  readonly server: string
  readonly call: McpAskingCall | undefined
  readonly mode: 'form' | 'url'
  readonly message: string
  /** `form`: the fields asked for (a flat JSON Schema object of string, number, boolean and enum properties). */
  readonly requestedSchema?: JsonObject
  /** `url`: the page the person should open, and the server's id of the flow. */
  readonly url?: string
  readonly elicitationId?: string
  /** Aborts when the server withdraws the request, the connection closes, or the call ends. */
  readonly signal: AbortSignal
}

/** A person's answer; `content` (with `accept` in form mode) must match the requested schema. */
export type McpElicitationAnswer =
  | {
      readonly action: 'accept'
      readonly content?: Readonly<Record<string, string | number | boolean | readonly string[]>>
    }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' }

export type McpElicitationHandler = (
  request: McpElicitationRequest,
) => McpElicitationAnswer | Promise<McpElicitationAnswer>

/** What the sampling policy is asked: an MCP `sampling/createMessage`, read and limited. */
export interface McpSamplingRequest {
  readonly server: string
  readonly call: McpAskingCall | undefined
  /** The server's messages, as it sent them (MCP content). */
  readonly messages: readonly JsonObject[]
  readonly systemPrompt: string | undefined
  /** The server's `maxTokens`, already capped by the config's `maxTokens`. */
  readonly maxTokens: number
  readonly temperature: number | undefined
  readonly stopSequences: readonly string[] | undefined
  /** The server's `modelPreferences` (hints, cost / speed / intelligence priorities), if any. */
  readonly modelPreferences: JsonObject | undefined
  /** The model the preferences' hints picked (else the config's `model`). */
  readonly model: LanguageModel
}

/** The policy's answer: allow (with a lower `maxTokens` or another model, optionally) or deny. */
export type McpSamplingDecision =
  | { readonly type: 'allow'; readonly maxTokens?: number; readonly model?: LanguageModel }
  | { readonly type: 'deny'; readonly reason?: string }

/** The limits of one sampling request, for `providerOptions`. */
export interface McpSamplingLimits {
  readonly maxTokens: number
  readonly temperature: number | undefined
  readonly stopSequences: readonly string[] | undefined
}

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', { message: `must be a function (${what})` })

const languageModel = z.custom<LanguageModel>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<LanguageModel>).step === 'function' &&
    typeof (value as Partial<LanguageModel>).provider === 'string' &&
    typeof (value as Partial<LanguageModel>).modelId === 'string',
  { message: 'must be a LanguageModel of @deepseek-ai/dsh-llm (provider, modelId, step())' },
)

export const elicitationConfig = z.strictObject({
  /** Asks a person (the harness's UI) and answers with their `accept` / `decline` / `cancel`. */
  handler: fn<McpElicitationHandler>('request => answer'),
  /** Also declare URL-mode elicitation (default: form mode only). */
  url: z.boolean().optional(),
})

export const DEFAULT_SAMPLING_MAX_TOKENS = 4_096

export const samplingConfig = z.strictObject({
  /** The model a request goes to unless its hints pick one of `models`. */
  model: languageModel,
  /** More models a server's `modelPreferences.hints` may pick (a hint is a substring of a `modelId`). */
  models: z.array(languageModel).readonly().optional(),
  /** The most tokens any request may ask for (default 4096); a server's `maxTokens` above it is lowered. */
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  /** Decides each request: allow, allow with less, or deny (a denied request is an error to the server). */
  policy:
    fn<(request: McpSamplingRequest) => McpSamplingDecision | Promise<McpSamplingDecision>>(
      'request => decision',
    ).optional(),
  /**
   * How the limits reach the model (`ModelRequest.providerOptions`). Default: the chat-completions
   * body fields `{ max_tokens, temperature?, stop? }` under the model's `provider` name, which the
   * suite's OpenAI-compatible adapter sends.
   */
  providerOptions: fn<(limits: McpSamplingLimits, model: LanguageModel) => ProviderOptions | undefined>(
    '(limits, model) => providerOptions',
  ).optional(),
})

/** A root: a `file:` URI (or an absolute path, turned into one) and an optional name. */
const root = z
  .union([z.string().min(1), z.strictObject({ uri: z.string().min(1), name: z.string().optional() })])
  .transform((value, ctx) => {
    const given = typeof value === 'string' ? { uri: value } : value
    const uri =
      given.uri.startsWith('file:') || !isAbsolute(given.uri) ? given.uri : pathToFileURL(given.uri).href
    let url: URL | undefined
    try {
      url = new URL(uri)
    } catch {
      url = undefined
    }
    if (url?.protocol !== 'file:') {
      ctx.addIssue({ code: 'custom', message: 'a root is an absolute path or a file: URI' })
      return z.NEVER
    }
    return given.name === undefined ? { uri: url.href } : { uri: url.href, name: given.name }
  })

export const rootsConfig = z.array(root).readonly()

export type McpRoot = { readonly uri: string; readonly name?: string }
/** What `roots` and `setRoots` accept: absolute paths, `file:` URIs, or `{ uri, name? }`. */
export type McpRootsInput = z.input<typeof rootsConfig>
export type McpElicitationConfig = z.output<typeof elicitationConfig>
export type McpSamplingConfig = z.output<typeof samplingConfig>
