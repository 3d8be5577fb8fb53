/** What the provider said about a failure, from an error body or an in-stream `error` object. */
export interface ProviderErrorInfo {
  readonly message: string | undefined
  readonly code: string | undefined
}

const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long/i

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/** Reads `{ error: { message, code, type } }` (or `{ message }`, or plain text) defensively. */
export function providerErrorInfo(body: string): ProviderErrorInfo {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const trimmed = body.trim()
    return { message: trimmed === '' ? undefined : trimmed.slice(0, 2000), code: undefined }
  }
  return providerErrorInfoOf(parsed)
}

export function providerErrorInfoOf(parsed: unknown): ProviderErrorInfo {
  if (typeof parsed !== 'object' || parsed === null) return { message: undefined, code: undefined }
  const outer = parsed as { error?: unknown; message?: unknown }
  const inner = (typeof outer.error === 'object' && outer.error !== null ? outer.error : outer) as {
    message?: unknown
    code?: unknown
    type?: unknown
  }
  const message = text(inner.message) ?? (typeof outer.error === 'string' ? outer.error : undefined)
  return { message: message?.slice(0, 2000), code: text(inner.code) ?? text(inner.type) }
}

/** True when the provider says the prompt does not fit the model's context window. */
export function isContextLengthError(info: ProviderErrorInfo): boolean {
  return (
    info.code === 'context_length_exceeded' ||
    (info.message !== undefined && CONTEXT_LENGTH.test(info.message))
  )
}
