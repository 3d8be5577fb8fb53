import { DshError, type ErrorKind } from '@deepseek-ai/dsh-llm'

/**
 * Stable codes of the chat-completions adapter. HTTP statuses map as documented in the README;
 * the stream-level codes (`CONNECTION_LOST`, `MALFORMED_STREAM`, `INCOMPLETE_STREAM`,
 * `PROVIDER_ERROR`) can arrive after some parts were already yielded.
 */
export type ChatCompletionsErrorCode =
  | 'MISSING_API_KEY'
  | 'MISSING_MODEL'
  | 'INVALID_OPTIONS'
  | 'INVALID_REQUEST'
  | 'UNSUPPORTED_TOOL_CHOICE'
  | 'BAD_REQUEST'
  | 'AUTHENTICATION_FAILED'
  | 'PERMISSION_DENIED'
  | 'INSUFFICIENT_BALANCE'
  | 'MODEL_NOT_FOUND'
  | 'TIMEOUT'
  | 'CONTEXT_LENGTH_EXCEEDED'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'HTTP_ERROR'
  | 'CONNECTION_FAILED'
  | 'CONNECTION_LOST'
  | 'MALFORMED_STREAM'
  | 'INCOMPLETE_STREAM'
  | 'INVALID_RESPONSE'
  | 'PROVIDER_ERROR'
  | 'ABORTED'

/** Codes worth the same request again later (after `retryAfterMs` when the provider said so). */
const RETRYABLE: ReadonlySet<ChatCompletionsErrorCode> = new Set<ChatCompletionsErrorCode>([
  'TIMEOUT',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'CONNECTION_FAILED',
  'CONNECTION_LOST',
  'INCOMPLETE_STREAM',
])

const USER_CODES: ReadonlySet<ChatCompletionsErrorCode> = new Set<ChatCompletionsErrorCode>([
  'MISSING_API_KEY',
  'MISSING_MODEL',
  'INVALID_OPTIONS',
  'INVALID_REQUEST',
])

export interface ChatCompletionsErrorOptions {
  readonly code: ChatCompletionsErrorCode
  readonly message: string
  readonly cause?: unknown
  /** The HTTP status, when the failure is an HTTP answer. */
  readonly status?: number
  /** How long the provider asked to wait before trying again (`Retry-After`, `retry-after-ms`). */
  readonly retryAfterMs?: number
  /** The provider's own error message, verbatim (already part of `message`). */
  readonly providerMessage?: string
  /** The provider's own error code or type (`invalid_request_error`, `context_length_exceeded`, …). */
  readonly providerCode?: string
}

/** Every failure of the chat-completions adapter: bad options, HTTP errors, broken streams, aborts. */
export class ChatCompletionsError extends DshError<ChatCompletionsErrorCode> {
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly retryable: boolean
  readonly providerMessage: string | undefined
  readonly providerCode: string | undefined

  constructor(options: ChatCompletionsErrorOptions) {
    const kind: ErrorKind = USER_CODES.has(options.code) ? 'user' : 'system'
    super('chatCompletions', {
      code: options.code,
      message: options.message,
      kind,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    })
    this.status = options.status
    this.retryAfterMs = options.retryAfterMs
    this.retryable = RETRYABLE.has(options.code)
    this.providerMessage = options.providerMessage
    this.providerCode = options.providerCode
  }

  /** True for an error of this family, from any copy of the package. */
  static isInstance(value: unknown): value is ChatCompletionsError {
    return DshError.isOfFamily(value, 'chatCompletions')
  }
}
