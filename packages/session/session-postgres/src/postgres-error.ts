import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from '@deepseek-ai/dsh-session'

/** The SQLSTATE of a `pg` error (`DatabaseError.code`), if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/**
 * A failure of the database or the connection as an `IO` SessionError (a `SessionError` the store
 * threw itself passes through). The message names what was being done and the SQLSTATE, if any.
 */
export function postgresError(what: string, error: unknown): SessionError {
  if (SessionError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : describeValue(error)
  const state = sqlState(error)
  return new SessionError({
    code: 'IO',
    message: `${what}: PostgreSQL: ${message}${state === undefined ? '' : ` (SQLSTATE ${state})`}`,
    cause: error,
  })
}
