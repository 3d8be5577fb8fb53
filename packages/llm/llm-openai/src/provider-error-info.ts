/** What the provider said about a failure, from an error body or an in-stream `error` object. */
export interface ProviderErrorInfo {
  readonly message: string | undefined
  readonly code: string | undefined
  /** An HTTP status the provider put in the error object itself (vLLM's `code: 400`). */
  readonly status: number | undefined
}

const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long/i
const MAX_MESSAGE_CHARS = 2000
const NONE: ProviderErrorInfo = { message: undefined, code: undefined, status: undefined }

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/**
 * One validation problem of a FastAPI / pydantic body check (Mistral's 422s, vLLM's 400s):
 * `{ loc: ['body', 'stream_options'], msg: 'Extra inputs are not permitted' }` reads as
 * `body.stream_options: Extra inputs are not permitted`.
 */
function describeProblem(problem: unknown): string | undefined {
  if (!isObject(problem)) return text(problem)
  const msg = text(problem.msg) ?? text(problem.message)
  if (msg === undefined) return undefined
  const loc = Array.isArray(problem.loc) ? problem.loc.map((part) => String(part)).join('.') : undefined
  return loc === undefined || loc === '' ? msg : `${loc}: ${msg}`
}

/**
 * A `message` that is not a plain string: an object or a list of validation problems
 * (`{ detail: [...] }`, `[...]`), or a JSON string holding one. Anything else is shown as JSON, so
 * the provider's reason is never lost to `[object Object]`.
 */
function describeMessage(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const trimmed = value.trim()
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return describeMessage(JSON.parse(trimmed)) ?? text(value)
      } catch {
        return text(value)
      }
    }
    return text(value)
  }
  if (Array.isArray(value)) {
    const problems = value.map(describeProblem).filter((p): p is string => p !== undefined)
    return problems.length > 0 ? problems.join('; ') : undefined
  }
  if (isObject(value)) {
    if (value.detail !== undefined) return describeMessage(value.detail)
    const single = describeProblem(value)
    if (single !== undefined) return single
    try {
      return JSON.stringify(value)
    } catch {
      return undefined
    }
  }
  return text(value)
}

/** Reads `{ error: { message, code, type } }` (or `{ message }`, or plain text) defensively. */
export function providerErrorInfo(body: string): ProviderErrorInfo {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const trimmed = body.trim()
    return { ...NONE, message: trimmed === '' ? undefined : trimmed.slice(0, MAX_MESSAGE_CHARS) }
  }
  return providerErrorInfoOf(parsed)
}

/**
 * The same, from a parsed value: OpenAI's `{ error: { message, type, code } }`, vLLM's flat
 * `{ object: 'error', message, type, code: 400 }`, Mistral's `{ message: { detail: [...] } }` and
 * `{ detail: [...] }`, or `{ error: 'text' }`.
 */
export function providerErrorInfoOf(parsed: unknown): ProviderErrorInfo {
  if (!isObject(parsed)) return NONE
  const inner = isObject(parsed.error) ? parsed.error : parsed
  const message =
    describeMessage(inner.message) ??
    (typeof parsed.error === 'string' ? parsed.error : undefined) ??
    (inner.detail === undefined ? undefined : describeMessage(inner.detail)) ??
    (parsed.detail === undefined ? undefined : describeMessage(parsed.detail))
  const status =
    typeof inner.code === 'number' && Number.isInteger(inner.code) && inner.code >= 100 && inner.code < 600
      ? inner.code
      : undefined
  return {
    message: message?.slice(0, MAX_MESSAGE_CHARS),
    code:
      status === undefined ? (text(inner.code) ?? text(inner.type)) : (text(inner.type) ?? text(inner.code)),
    status,
  }
}

/** True when the provider says the prompt does not fit the model's context window. */
export function isContextLengthError(info: ProviderErrorInfo): boolean {
  return (
    info.code === 'context_length_exceeded' ||
    (info.message !== undefined && CONTEXT_LENGTH.test(info.message))
  )
}
