import type { AssistantMessage, Message, ToolCallBlock, ToolSchema } from './types.ts'

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

/** One model step: the history so far, the tools the model may call, and a cancellation signal. */
export interface ModelRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools: readonly ToolSchema[]
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
  | { readonly type: 'tool-call'; readonly call: ToolCallBlock }
  | { readonly type: 'finish'; readonly response: ModelResponse }

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
