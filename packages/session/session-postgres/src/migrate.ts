import { SessionError } from '@deepseek-ai/dsh-session'
import { LATEST_VERSION, MIGRATIONS } from './migrations.ts'
import { postgresError } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { MigrateResult, PostgresClient, PostgresPool } from './types.ts'

/**
 * Applies the migrations the database lacks, in one transaction, under a transaction-level advisory
 * lock per schema: processes migrating at once wait for each other, and the later ones find nothing
 * left to do. A database already at a newer version than this build is refused.
 */
export async function migrate(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly schemaName: string
  readonly where: string
}): Promise<MigrateResult> {
  const { pool, tables, schemaName, where } = options
  let client: PostgresClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw postgresError(`${where}: cannot connect`, error)
  }
  let failed: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dsh-session-postgres:${schemaName}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${tables.schema}`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    )
    const found = await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${tables.migrations}`)
    const current = Number(found.rows[0]?.version ?? 0)
    if (current > LATEST_VERSION) {
      throw new SessionError({
        code: 'UNSUPPORTED_FORMAT',
        message: `${where}: schema "${schemaName}" is at version ${current}, newer than this build of @deepseek-ai/dsh-session-postgres (${LATEST_VERSION}); upgrade it`,
        details: { foundVersion: current, supportedVersion: LATEST_VERSION },
      })
    }
    const applied: number[] = []
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue
      await client.query(migration.sql(tables))
      await client.query(`INSERT INTO ${tables.migrations} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ])
      applied.push(migration.version)
    }
    await client.query('COMMIT')
    return { version: Math.max(current, LATEST_VERSION), applied }
  } catch (error) {
    failed = error instanceof Error ? error : new Error(String(error))
    await client.query('ROLLBACK').catch(() => undefined)
    throw postgresError(`${where}: migration failed, nothing was changed`, error)
  } finally {
    // A client whose transaction failed is dropped rather than reused.
    client.release(failed)
  }
}
