import type { ChatCompletionsErrorCode, OpenAICompatibleModelOptions } from '@deepseek-ai/dsh-llm-openai'
import type { RequestRules } from './request-rules.ts'

/**
 * One provider quirk: the stream(s) a provider sends, as it sends them, with the doc or issue
 * thread each comes from. The transcripts are written by hand from those sources (field for field
 * where the source shows a stream); the replay server writes each piece as it is.
 */
export interface Transcript {
  /** Unique, kebab-case: names the test. */
  readonly id: string
  readonly provider: string
  /** The quirk, in one line. */
  readonly quirk: string
  /** Where the stream shape and the request rules come from. */
  readonly sources: readonly string[]
  /** The base URL a harness would configure (the test delivers its requests to the replay server). */
  readonly baseUrl: string
  readonly model: string
  /** The harness names no model: the host's default must be `model`. */
  readonly defaultModel?: boolean
  /** Options a harness on this provider would pass (none, for most: the defaults must work). */
  readonly options?: Partial<OpenAICompatibleModelOptions>
  /** What the provider refuses, checked on every request (documented errors, as the provider words them). */
  readonly rules: RequestRules
  /**
   * The answers, in order: the first is the tool-calling step (two calls of the two tools, unless
   * the transcript is about a failure), the next ones answer the agent's later requests.
   */
  readonly steps: readonly Step[]
  /** What the adapter makes of `steps[0]`. */
  readonly expected: Expected
  /** How the agent turn ends (two tools, eager dispatch). */
  readonly agent: AgentExpectation
  /** The official `openai` client on `steps[0]`: what it makes of it, compared with the adapter. */
  readonly reference: Reference
  /** A tool result that carries an image (the `get_time` tool returns a PNG as well). */
  readonly toolImage?: boolean
}

export type Step =
  | {
      readonly kind: 'sse'
      /** SSE text, one network write per piece. */
      readonly pieces: readonly string[]
      /**
       * In an agent run, the server waits after this piece until the first tool has started (eager
       * dispatch proof). The piece that makes the first call complete, for a tool-calling step.
       */
      readonly holdAfter?: number
      /** The server does not end the response after its last piece (until the connection closes). */
      readonly keepOpen?: boolean
    }
  | { readonly kind: 'http'; readonly status: number; readonly body: unknown }

export interface ExpectedCall {
  readonly id: string | RegExp
  readonly name: string
  readonly arguments: string
}

export type Expected =
  | {
      readonly kind: 'ok'
      readonly reasoning?: string
      readonly text?: string
      readonly calls: readonly ExpectedCall[]
      readonly finishReason: 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other'
      readonly usage: {
        readonly inputTokens: number
        readonly outputTokens: number
        readonly cacheHitInputTokens?: number
        readonly reasoningTokens?: number
      }
    }
  | {
      readonly kind: 'error'
      readonly code: ChatCompletionsErrorCode
      readonly retryable: boolean
      /** A part of the message: the provider's own reason, which must survive. */
      readonly message: string
      /** Calls yielded before the failure. */
      readonly calls: readonly ExpectedCall[]
    }

export type AgentExpectation =
  | {
      readonly reason: 'completed'
      /** The answer of the last step. */
      readonly text: string
      /** Requests the server received (a retry counts). */
      readonly requests: number
    }
  | { readonly reason: 'error'; readonly code: ChatCompletionsErrorCode; readonly requests: number }

export type Reference =
  /** The official client assembles the same calls, text and usage. */
  | { readonly kind: 'agrees' }
  /** It parses the stream but assembles something else: said why, and exactly what. */
  | { readonly kind: 'differs'; readonly because: string; readonly assembles: Assembly }
  /** It throws (the message must contain `message`). */
  | { readonly kind: 'throws'; readonly message: string; readonly because: string }

/** What a client made of a tool-calling step: its calls, its text, its usage (input, output). */
export interface Assembly {
  readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[]
  readonly text: string
  readonly usage: readonly [number, number]
}

/** `data: <json>` for an object, the text as it is for a string (a raw event written by hand). */
export function data(value: unknown): string {
  return `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`
}

export const DONE = 'data: [DONE]\n\n'
