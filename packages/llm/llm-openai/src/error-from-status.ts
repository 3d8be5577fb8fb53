import { ChatCompletionsError, type ChatCompletionsErrorCode } from './errors.ts'
import { isContextLengthError, providerErrorInfo, type ProviderErrorInfo } from './provider-error-info.ts'
import { retryAfterMs } from './retry-after-ms.ts'

function codeFor(status: number, info: ProviderErrorInfo): ChatCompletionsErrorCode {
  if (status === 400 || status === 422)
    return isContextLengthError(info) ? 'CONTEXT_LENGTH_EXCEEDED' : 'BAD_REQUEST'
  if (status === 401) return 'AUTHENTICATION_FAILED'
  if (status === 402) return 'INSUFFICIENT_BALANCE'
  if (status === 403) return 'PERMISSION_DENIED'
  if (status === 404) return 'MODEL_NOT_FOUND'
  if (status === 408) return 'TIMEOUT'
  if (status === 413) return 'CONTEXT_LENGTH_EXCEEDED'
  if (status === 429) return 'RATE_LIMITED'
  if (status >= 500) return 'SERVER_ERROR'
  return 'HTTP_ERROR'
}

const SUMMARY: Readonly<Record<ChatCompletionsErrorCode, string>> = {
  MISSING_API_KEY: 'no API key',
  MISSING_MODEL: 'no model',
  INVALID_OPTIONS: 'invalid options',
  INVALID_REQUEST: 'invalid request',
  UNSUPPORTED_TOOL_CHOICE: 'the server cannot honour the tool choice',
  BAD_REQUEST: 'the provider rejected the request',
  AUTHENTICATION_FAILED: 'the API key was rejected',
  PERMISSION_DENIED: 'the API key may not use this model or endpoint',
  INSUFFICIENT_BALANCE: 'the account has no balance left',
  MODEL_NOT_FOUND: 'the model (or the endpoint) does not exist',
  TIMEOUT: 'the request timed out',
  CONTEXT_LENGTH_EXCEEDED: "the prompt does not fit the model's context window",
  RATE_LIMITED: 'rate limited',
  SERVER_ERROR: 'the provider failed',
  HTTP_ERROR: 'unexpected HTTP status',
  CONNECTION_FAILED: 'could not connect',
  CONNECTION_LOST: 'the connection dropped',
  MALFORMED_STREAM: 'malformed stream',
  INCOMPLETE_STREAM: 'the stream ended early',
  INVALID_RESPONSE: 'invalid response',
  PROVIDER_ERROR: 'the provider reported an error',
  ABORTED: 'aborted',
}

/** Maps a non-2xx answer to a stable code, keeping the provider's message and its retry hint. */
export function errorFromStatus(options: {
  readonly status: number
  readonly statusText: string
  readonly headers: Headers
  readonly body: string
  readonly url: string
  readonly model: string
}): ChatCompletionsError {
  const { status, headers, url, model } = options
  const info = providerErrorInfo(options.body)
  const code = codeFor(status, info)
  const subject = code === 'MODEL_NOT_FOUND' ? ` (model "${model}")` : ''
  const location = status >= 300 && status < 400 ? headers.get('location') : null
  const said =
    location !== null
      ? `: redirected to ${location}; point baseUrl there`
      : info.message === undefined
        ? ''
        : `: ${info.message}`
  const wait = retryAfterMs(headers)
  return new ChatCompletionsError({
    code,
    message: `POST ${url} answered HTTP ${status}${options.statusText ? ` ${options.statusText}` : ''}, ${SUMMARY[code]}${subject}${said}`,
    status,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    ...(info.message === undefined ? {} : { providerMessage: info.message }),
    ...(info.code === undefined ? {} : { providerCode: info.code }),
  })
}
