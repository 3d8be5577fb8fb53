import type { AnySession } from '@deepseek-ai/dsh-session'
import {
  textBlock,
  toolCallBlock,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
} from '@deepseek-ai/dsh-llm'

/** Tokens of a request as the windowed model counts them: its JSON text / 4, rounded up. */
export function requestTokens(request: ModelRequest): number {
  const { system, messages, tools } = request
  return Math.ceil(JSON.stringify({ system, messages, tools }).length / 4)
}

export interface WindowedModel extends LanguageModel {
  /** Requests refused for being over the window. */
  readonly refused: number[]
  /** Tokens of each request it answered. */
  readonly tokens: number[]
  /** Each answered request's messages, with the session's length when it came. */
  readonly seen: { readonly messages: ModelRequest['messages']; readonly events: number }[]
}

/**
 * A scripted model with a context window: it refuses (throws, not retryable) any request whose
 * token count is over `windowTokens`, like a provider's context-length error, and reports the
 * count as its usage. It calls `tool` `calls` times, one call a step (ids `c<n>` from `first`),
 * then answers text.
 */
export function createWindowedModel(options: {
  readonly windowTokens: number
  readonly tool: string
  readonly calls: number
  readonly first?: number
  readonly session: () => AnySession
}): WindowedModel {
  const refused: number[] = []
  const tokens: number[] = []
  const seen: { messages: ModelRequest['messages']; events: number }[] = []
  let made = 0
  return {
    provider: 'windowed',
    modelId: `window-${options.windowTokens}`,
    refused,
    tokens,
    seen,
    step(request: ModelRequest): Promise<ModelResponse> {
      const count = requestTokens(request)
      if (count > options.windowTokens) {
        refused.push(count)
        return Promise.reject(
          Object.assign(
            new Error(`request of ${count} tokens is over the ${options.windowTokens}-token window`),
            {
              code: 'CONTEXT_LENGTH_EXCEEDED',
            },
          ),
        )
      }
      tokens.push(count)
      seen.push({ messages: request.messages, events: options.session().events().length })
      const n = (options.first ?? 1) + made
      const done = made >= options.calls
      made++
      return Promise.resolve({
        message: {
          role: 'assistant',
          content: done
            ? [textBlock('all read')]
            : [toolCallBlock({ id: `c${n}`, name: options.tool, args: { part: n } })],
        },
        finishReason: done ? 'stop' : 'tool-calls',
        usage: { inputTokens: count, outputTokens: 12, totalTokens: count + 12 },
      })
    },
  }
}
