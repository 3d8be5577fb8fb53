import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { AiSdkError, type AiSdkErrorCode } from './errors.ts'
import { retryAfterMs } from './retry-after-ms.ts'

const CONTEXT_LENGTH =
  /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|exceeds? the (model'?s )?context/i
const MAX_MESSAGE_CHARS = 2000

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined

function statusCode(status: number, body: string): AiSdkErrorCode {
  if (status === 400 || status === 422)
    return CONTEXT_LENGTH.test(body) ? 'CONTEXT_LENGTH_EXCEEDED' : 'BAD_REQUEST'
  if (status === 401) return 'AUTHENTICATION_FAILED'
  if (status === 403) return 'PERMISSION_DENIED'
  if (status === 404) return 'MODEL_NOT_FOUND'
  if (status === 408) return 'TIMEOUT'
  if (status === 413) return 'CONTEXT_LENGTH_EXCEEDED'
  if (status === 429) return 'RATE_LIMITED'
  if (status >= 500) return 'SERVER_ERROR'
  return 'HTTP_ERROR'
}

/** `{ message, type }`, or one level down in `error` (Anthropic's and OpenAI's error events). */
function describeObject(value: Record<string, unknown>): { message?: string; code?: string } {
  const inner = isObject(value.error) ? value.error : value
  const message =
    text(inner.message) ?? text(value.message) ?? (typeof value.error === 'string' ? value.error : undefined)
  const code = text(inner.type) ?? text(inner.code) ?? text(value.code)
  return {
    ...(message === undefined ? {} : { message: message.slice(0, MAX_MESSAGE_CHARS) }),
    ...(code === undefined || code === 'error' ? {} : { code }),
  }
}

/** The code of a provider's error object met in a stream (Anthropic's `overloaded_error`, …). */
function streamCode(code: string | undefined, message: string | undefined): AiSdkErrorCode {
  const said = `${code ?? ''} ${message ?? ''}`
  if (CONTEXT_LENGTH.test(said)) return 'CONTEXT_LENGTH_EXCEEDED'
  if (code === undefined) return 'PROVIDER_ERROR'
  if (/overloaded|api_error|server_error|internal/i.test(code)) return 'SERVER_ERROR'
  if (/rate_limit/i.test(code)) return 'RATE_LIMITED'
  if (/invalid_request/i.test(code)) return 'BAD_REQUEST'
  return 'PROVIDER_ERROR'
}

/**
 * Maps whatever an AI SDK provider threw or put in an `error` stream part to an `AiSdkError`. An
 * `APICallError` keeps its status, its `isRetryable` (the provider package's judgement, honoured
 * as `retryable`) and its `Retry-After`; the AI SDK's other error classes get a code of their own.
 */
export function errorFromAiSdk(error: unknown, where: string): AiSdkError {
  if (AiSdkError.isInstance(error)) return error
  if (APICallError.isInstance(error)) {
    const body = `${error.message} ${error.responseBody ?? ''}`
    const providerMessage = error.message.slice(0, MAX_MESSAGE_CHARS)
    const status = error.statusCode
    const wait = retryAfterMs(error.responseHeaders)
    const code: AiSdkErrorCode = status === undefined ? 'CONNECTION_FAILED' : statusCode(status, body)
    return new AiSdkError({
      code,
      message: `${where}: ${status === undefined ? 'the request failed' : `HTTP ${status}`}: ${providerMessage}`,
      cause: error,
      retryable: error.isRetryable,
      ...(status === undefined ? {} : { status }),
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
      providerMessage,
    })
  }
  const classified: readonly [(e: unknown) => boolean, AiSdkErrorCode][] = [
    [(e) => LoadAPIKeyError.isInstance(e), 'MISSING_API_KEY'],
    [(e) => NoSuchModelError.isInstance(e), 'MODEL_NOT_FOUND'],
    [(e) => UnsupportedFunctionalityError.isInstance(e), 'UNSUPPORTED'],
    [(e) => EmptyResponseBodyError.isInstance(e), 'MALFORMED_STREAM'],
    [(e) => InvalidResponseDataError.isInstance(e), 'MALFORMED_STREAM'],
    [(e) => JSONParseError.isInstance(e), 'MALFORMED_STREAM'],
    [(e) => TypeValidationError.isInstance(e), 'MALFORMED_STREAM'],
  ]
  for (const [matches, code] of classified) {
    if (matches(error)) {
      const message = (error as Error).message
      return new AiSdkError({ code, message: `${where}: ${message}`, cause: error, providerMessage: message })
    }
  }
  if (error instanceof Error) {
    return new AiSdkError({
      code: 'PROVIDER_ERROR',
      message: `${where}: ${error.message}`,
      cause: error,
      providerMessage: error.message.slice(0, MAX_MESSAGE_CHARS),
    })
  }
  if (isObject(error)) {
    const { message, code } = describeObject(error)
    return new AiSdkError({
      code: streamCode(code, message),
      message: `${where}: the provider reported an error: ${message ?? describeValue(error)}${code === undefined ? '' : ` (${code})`}`,
      cause: error,
      ...(message === undefined ? {} : { providerMessage: message }),
      ...(code === undefined ? {} : { providerCode: code }),
    })
  }
  return new AiSdkError({
    code: 'PROVIDER_ERROR',
    message: `${where}: the provider reported an error: ${typeof error === 'string' ? error : describeValue(error)}`,
    cause: error,
  })
}
