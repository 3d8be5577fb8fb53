import { SessionError } from './errors.ts'

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}

/** An `IO` SessionError that keeps the system error as `cause`. */
export function ioError(where: string, what: string, cause: unknown): SessionError {
  const detail = cause instanceof Error ? cause.message : String(cause)
  return new SessionError({ code: 'IO', message: `${where}: ${what}: ${detail}`, cause })
}
