import type { ReceivedRequest } from '../../../../../test-support/replay-server.ts'

/** A named SSE event (`event:` then `data:`), as Anthropic and the Responses API send them. */
export const event = (name: string, value: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`

/** An unnamed SSE event, as chat completions send them. */
export const data = (value: unknown): string =>
  `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`

/** What a provider answers instead of a stream when it refuses a request. */
export interface Rejection {
  readonly status: number
  readonly body: unknown
}

/** One provider's wire format: the streams it sends, and what it refuses. */
export interface WireTranscript {
  readonly provider: string
  readonly sources: readonly string[]
  /** Pieces of the tool-calling step (three calls: get_weather, get_time, book_table). */
  readonly toolStep: readonly string[]
  /** The piece after which the first call is complete: the server holds there until it started. */
  readonly holdAfter: number
  /**
   * Whether the provider package yields each call as soon as its last piece arrives (so the first
   * tool can start while the server still holds the rest). `@ai-sdk/openai-compatible` 2.x
   * completes its calls only when the HTTP stream ends (its StreamingToolCallTracker flushes at the
   * end), so there a call starts after the last byte but still before the model's step has finished.
   */
  readonly callsCompleteMidStream: boolean
  readonly answerStep: readonly string[]
  readonly answer: string
  readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[]
  readonly rules: (request: ReceivedRequest) => Rejection | undefined
}

export type Json = Record<string, unknown>
