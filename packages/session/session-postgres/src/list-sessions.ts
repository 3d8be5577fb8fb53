import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalid, textProblem } from './read-store-options.ts'
import { postgresError } from './postgres-error.ts'
import { isoText, type Tables } from './tables.ts'
import type { ListSessionsOptions, PostgresPool, PostgresSessionInfo } from './types.ts'

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000

/** A page of sessions in byte order of their ids (`COLLATE "C"`, whatever the database's collation). */
export async function listSessions(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly list: ListSessionsOptions | undefined
  readonly where: string
}): Promise<readonly PostgresSessionInfo[]> {
  const { pool, tables, where } = options
  const { after, limit } = readListOptions(where, options.list)
  let rows: readonly Record<string, unknown>[]
  try {
    const result = await pool.query(
      `SELECT id, ${isoText('created_at')} AS created_at, last_seq, lease_holder,
              ${isoText('lease_expires_at')} AS expires_at, lease_expires_at > clock_timestamp() AS live
         FROM ${tables.sessions}
        WHERE $1::text IS NULL OR id COLLATE "C" > $1::text COLLATE "C"
        ORDER BY id COLLATE "C"
        LIMIT $2`,
      [after ?? null, limit],
    )
    rows = result.rows
  } catch (error) {
    throw postgresError(`${where}: cannot list sessions`, error)
  }
  return Object.freeze(
    rows.map((row) =>
      Object.freeze({
        id: String(row.id),
        createdAt: String(row.created_at),
        lastSeq: Number(row.last_seq),
        lease:
          row.expires_at === null || row.expires_at === undefined
            ? undefined
            : Object.freeze({
                holder: String(row.lease_holder),
                expiresAt: String(row.expires_at),
                live: row.live === true,
              }),
      }),
    ),
  )
}

function readListOptions(where: string, options: unknown): { after: string | undefined; limit: number } {
  if (options === undefined) return { after: undefined, limit: DEFAULT_LIMIT }
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid(`${where}: options must be an object, got ${describeValue(options)}`)
  for (const key of Object.keys(options)) {
    if (key !== 'after' && key !== 'limit')
      throw invalid(`${where}: options has an unknown key ${JSON.stringify(key)} (known: after, limit)`)
  }
  const { after, limit } = options as ListSessionsOptions
  const afterProblem = after === undefined ? undefined : textProblem(after)
  if (afterProblem !== undefined) throw invalid(`${where}: options.after ${afterProblem}`)
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT))
    throw invalid(
      `${where}: options.limit must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(limit)}`,
    )
  return { after, limit: limit ?? DEFAULT_LIMIT }
}
