import { hostname } from 'node:os'
import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError, type SessionLogger } from '@deepseek-ai/dsh-session'
import type { PostgresPool, PostgresSessionStoreOptions } from './types.ts'

export interface StoreSettings {
  readonly pool: PostgresPool
  readonly schema: string
  readonly leaseMs: number
  readonly holder: string
  readonly logger: SessionLogger | undefined
}

const KNOWN = ['pool', 'schema', 'leaseMs', 'holder', 'logger']
const DEFAULT_LEASE_MS = 30_000
const MIN_LEASE_MS = 100
/** A lease longer than a day is a mistake: a crashed holder would block its session that long. */
const MAX_LEASE_MS = 86_400_000
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/

/** Checks `createPostgresSessionStore`'s options key by key; a typo is an error, not a default. */
export function readStoreOptions(where: string, options: unknown): StoreSettings {
  if (typeof options !== 'object' || options === null || Array.isArray(options) || types.isProxy(options)) {
    throw invalid(`${where}: options must be an object with a pool, got ${describeValue(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key))
      throw invalid(
        `${where}: options has an unknown key ${JSON.stringify(key)} (known: ${KNOWN.join(', ')})`,
      )
  }
  const { pool, schema, leaseMs, holder, logger } = options as PostgresSessionStoreOptions
  if (
    typeof pool !== 'object' ||
    pool === null ||
    typeof pool.query !== 'function' ||
    typeof pool.connect !== 'function'
  ) {
    throw invalid(`${where}: options.pool must be a pg.Pool (query and connect), got ${describeValue(pool)}`)
  }
  if (schema !== undefined && (typeof schema !== 'string' || !SCHEMA.test(schema))) {
    throw invalid(
      `${where}: options.schema must be a lower-case identifier (letters, digits, _; at most 63), got ${describeValue(schema)}`,
    )
  }
  if (
    leaseMs !== undefined &&
    (typeof leaseMs !== 'number' ||
      !Number.isSafeInteger(leaseMs) ||
      leaseMs < MIN_LEASE_MS ||
      leaseMs > MAX_LEASE_MS)
  ) {
    throw invalid(
      `${where}: options.leaseMs must be an integer from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}, got ${describeValue(leaseMs)}`,
    )
  }
  const holderProblem = holder === undefined ? undefined : textProblem(holder)
  if (holderProblem !== undefined) throw invalid(`${where}: options.holder ${holderProblem}`)
  if (
    logger !== undefined &&
    (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function')
  ) {
    throw invalid(
      `${where}: options.logger must have a warn(message, fields) method, got ${describeValue(logger)}`,
    )
  }
  return {
    pool,
    schema: schema ?? 'public',
    leaseMs: leaseMs ?? DEFAULT_LEASE_MS,
    holder: holder ?? `${hostname()}:${process.pid}`,
    logger,
  }
}

/**
 * Why `value` cannot be stored as a text key (a session id, a holder name), or `undefined`.
 * PostgreSQL text holds no NUL, and the driver sends a lone surrogate as U+FFFD, so two different
 * ids could meet in one row: both are refused.
 */
export function textProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${describeValue(value)}`
  if (value.length === 0) return 'must not be empty'
  if (value.length > 200) return `must be at most 200 characters, got ${value.length}`
  if (value.includes('\0')) return 'must not contain NUL'
  if (/\p{Cs}/u.test(value)) return 'must be well-formed Unicode (it has a lone surrogate)'
  return undefined
}

export function invalid(message: string): SessionError {
  return new SessionError({ code: 'INVALID_ARGUMENT', message })
}
