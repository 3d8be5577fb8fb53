import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import {
  createPostgresSessionStore,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from '@deepseek-ai/dsh-session-postgres'

export interface TestDatabase {
  /** The server's URL (DSH_TEST_POSTGRES_URL, or the throwaway server of the run). */
  readonly url: string
  /** A pool for this file, ended after it. */
  pool(): pg.Pool
  /** This file's own schema: files run side by side on one server without meeting. */
  readonly schema: string
  /** A store on this file's pool and schema (migrated by `migrated()`). */
  store(options?: Omit<PostgresSessionStoreOptions, 'pool' | 'schema'>): PostgresSessionStore
  /** A fresh session id. */
  id(prefix?: string): string
}

/** The PostgreSQL side of one test file: a pool, a schema of its own dropped afterwards. */
export function useTestDatabase(name: string, options: { migrate?: boolean } = {}): TestDatabase {
  const url = inject('postgresUrl')
  const schema = `t_${name}_${randomBytes(4).toString('hex')}`
  let pool: pg.Pool | undefined
  let counter = 0
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 8 })
    // pg emits 'error' for idle clients the server drops; without a listener the process would die.
    pool.on('error', () => {})
    try {
      await pool.query('SELECT 1')
    } catch (error) {
      throw new Error(`cannot reach PostgreSQL at ${url}: ${String(error)}`, { cause: error })
    }
    if (options.migrate !== false) await createPostgresSessionStore({ pool, schema }).migrate()
  })
  afterAll(async () => {
    if (pool === undefined) return
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })
  return {
    url,
    schema,
    pool: () => pool!,
    store: (more = {}) => createPostgresSessionStore({ pool: pool!, schema, ...more }),
    id: (prefix = 's') => `${prefix}-${++counter}-${randomBytes(3).toString('hex')}`,
  }
}
