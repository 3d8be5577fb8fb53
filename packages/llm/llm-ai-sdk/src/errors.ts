import { DshError, type ErrorKind } from '@deepseek-ai/dsh-llm'

/**
 * Stable codes of the AI SDK bridge. The HTTP ones follow an `APICallError`'s status; the stream
 * ones (`PROVIDER_ERROR`, `MALFORMED_STREAM`, `INCOMPLETE_STREAM`) can come after some parts were
 * already yielded.
 */
export type AiSdkErrorCode =
  | 'INVALID_MODEL'
  | 'INVALID_OPTIONS'
  | 'INVALID_REQUEST'
  | 'INVALID_TOOL'
  | 'MISSING_API_KEY'
  | 'UNSUPPORTED'
  | 'BAD_REQUEST'
  | 'CONTEXT_LENGTH_EXCEEDED'
  | 'AUTHENTICATION_FAILED'
  | 'PERMISSION_DENIED'
  | 'MODEL_NOT_FOUND'
  | 'TIMEOUT'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'HTTP_ERROR'
  | 'CONNECTION_FAILED'
  | 'PROVIDER_ERROR'
  | 'MALFORMED_STREAM'
  | 'INCOMPLETE_STREAM'
  | 'ABORTED'

const USER_CODES: ReadonlySet<AiSdkErrorCode> = new Set<AiSdkErrorCode>([
  'INVALID_MODEL',
  'INVALID_OPTIONS',
  'INVALID_REQUEST',
  'INVALID_TOOL',
  'MISSING_API_KEY',
  'UNSUPPORTED',
])

export interface AiSdkErrorOptions {
  readonly code: AiSdkErrorCode
  readonly message: string
  readonly cause?: unknown
  /**
   * Worth the same request again later. For an AI SDK `APICallError` it is the error's own
   * `isRetryable` (the provider package decided); otherwise it follows the code.
   */
  readonly retryable?: boolean
  /** The HTTP status, when the failure is an HTTP answer. */
  readonly status?: number
  /** How long the provider asked to wait (`retry-after-ms`, `Retry-After`). */
  readonly retryAfterMs?: number
  /** The provider's own error message, verbatim (already part of `message`). */
  readonly providerMessage?: string
  /** The provider's own error type or code (`overloaded_error`, `rate_limit_exceeded`, …). */
  readonly providerCode?: string
}

/** Codes worth the same request again when the error itself does not say. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<AiSdkErrorCode> = new Set<AiSdkErrorCode>([
  'TIMEOUT',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'CONNECTION_FAILED',
  'INCOMPLETE_STREAM',
])

/** Every failure of the AI SDK bridge: a model that is not one, a provider error, a broken stream, an abort. */
export class AiSdkError extends DshError<AiSdkErrorCode> {
  readonly retryable: boolean
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly providerMessage: string | undefined
  readonly providerCode: string | undefined

  constructor(options: AiSdkErrorOptions) {
    const kind: ErrorKind = USER_CODES.has(options.code) ? 'user' : 'system'
    super('aiSdk', {
      code: options.code,
      message: options.message,
      kind,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    })
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(options.code)
    this.status = options.status
    this.retryAfterMs = options.retryAfterMs
    this.providerMessage = options.providerMessage
    this.providerCode = options.providerCode
  }

  /** True for an error of this family, from any copy of the package. */
  static isInstance(value: unknown): value is AiSdkError {
    return DshError.isOfFamily(value, 'aiSdk')
  }
}
