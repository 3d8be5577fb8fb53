import type { AssistantMessage, CallId, JsonObject, Message, ToolCallBlock, ToolSchema } from './types.ts'

/** Why the model stopped producing this step. */
export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other'

export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
  /** Of `inputTokens`, how many the provider served from its prompt cache, when it reports it. */
  readonly cacheHitInputTokens?: number
  /** Of `inputTokens`, how many missed the provider's prompt cache, when it reports it. */
  readonly cacheMissInputTokens?: number
  /** Of `outputTokens`, how many were reasoning, when the provider reports it. */
  readonly reasoningTokens?: number
}

/**
 * Whether and which tool the model must call this step: `auto` (the model decides; what a request
 * without `toolChoice` means), `none` (answer in text), `required` (call at least one tool), or one
 * named tool (`{ type: 'tool', name }`, which must be among `ModelRequest.tools`).
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly type: 'tool'; readonly name: string }

/**
 * Per-provider request options, keyed by provider: each adapter reads the keys it knows and ignores
 * the others (the OpenAI-compatible adapter: its `provider` name, whose fields join the request
 * body; the AI SDK bridge: the whole record, as the AI SDK's `providerOptions`).
 */
export type ProviderOptions = Readonly<Record<string, JsonObject>>

/** One model step: the history so far, the tools the model may call, and a cancellation signal. */
export interface ModelRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools: readonly ToolSchema[]
  /**
   * See `ToolChoice`; absent means `auto`. A model that cannot honour the choice must reject the
   * step with an error naming it, never silently ignore it.
   */
  readonly toolChoice?: ToolChoice
  /** See `ProviderOptions`. */
  readonly providerOptions?: ProviderOptions
  readonly signal?: AbortSignal
}

export interface ModelResponse {
  readonly message: AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: TokenUsage
}

/**
 * Incremental output of a streaming step; the last part is always `finish`, whose message holds
 * every `tool-call` part yielded before it, in the same order. A `tool-call` part is yielded once
 * that call is complete (its arguments will not change), which may be long before `finish`.
 */
export type ModelStreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | ToolInputStreamPart
  | { readonly type: 'tool-call'; readonly call: ToolCallBlock }
  | { readonly type: 'finish'; readonly response: ModelResponse }

/**
 * A tool call's arguments while the model writes them (optional: a model may yield only the
 * complete `tool-call`). `tool-input-start` names the call (`id` as its `tool-call` part will
 * carry it) and tool; each `tool-input-delta` adds the next piece of the raw argument text;
 * `tool-input-end` says the text is complete, before that call's `tool-call` part. The deltas are
 * for display: only the `tool-call` part is the call.
 */
export type ToolInputStreamPart =
  | { readonly type: 'tool-input-start'; readonly id: CallId; readonly name: string }
  | { readonly type: 'tool-input-delta'; readonly id: CallId; readonly delta: string }
  | { readonly type: 'tool-input-end'; readonly id: CallId }

/**
 * The interface a loop calls. `step` must reject (not resolve) when `request.signal` aborts;
 * it must not mutate the request. `stream`, when present, yields the same step incrementally.
 */
export interface LanguageModel {
  readonly provider: string
  readonly modelId: string
  step(request: ModelRequest): Promise<ModelResponse>
  stream?(request: ModelRequest): AsyncIterable<ModelStreamPart>
}
