import { ChatCompletionsError, type ChatCompletionsErrorCode } from './errors.ts'
import { isContextLengthError, type ProviderErrorInfo } from './provider-error-info.ts'

/**
 * The code of an error the provider reported inside a 200 stream. The HTTP status the provider
 * would have answered is often in the object (vLLM's `code: 400`, OpenRouter's `code: 502`), so
 * the same failure gets the same code in a stream as in a status line: a prompt that does not fit
 * is `CONTEXT_LENGTH_EXCEEDED` (never worth the same request again), an overload or a crash
 * upstream is retryable.
 */
function codeFor(info: ProviderErrorInfo): ChatCompletionsErrorCode {
  if (isContextLengthError(info)) return 'CONTEXT_LENGTH_EXCEEDED'
  if (info.status === 429) return 'RATE_LIMITED'
  if (info.status !== undefined && info.status >= 500) return 'SERVER_ERROR'
  return 'PROVIDER_ERROR'
}

/** Maps an error object found mid-stream (`{ error: … }`, vLLM's `{ object: 'error', … }`). */
export function errorFromStreamEvent(info: ProviderErrorInfo): ChatCompletionsError {
  return new ChatCompletionsError({
    code: codeFor(info),
    message: `the provider reported an error mid-stream: ${info.message ?? 'no message'}`,
    ...(info.message === undefined ? {} : { providerMessage: info.message }),
    ...(info.code === undefined ? {} : { providerCode: info.code }),
  })
}
