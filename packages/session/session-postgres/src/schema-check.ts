import { SessionError } from '@deepseek-ai/dsh-session'
import { LATEST_VERSION } from './migrations.ts'
import { postgresError, sqlState } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool } from './types.ts'

/**
 * Checks once per store that the schema is at this build's version (re-checked after a failure, so
 * `migrate()` from another process is picked up): a missing or older schema asks for `migrate()`, a
 * newer one for an upgrade. Explicit migrations: the store never changes the schema by itself.
 */
export function createSchemaCheck(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly schemaName: string
}): { check(where: string): Promise<void>; passed(): void } {
  const { pool, tables, schemaName } = options
  let ok = false
  return {
    passed: () => void (ok = true),
    async check(where) {
      if (ok) return
      let version = 0
      try {
        const found = await pool.query(
          `SELECT coalesce(max(version), 0) AS version FROM ${tables.migrations}`,
        )
        version = Number(found.rows[0]?.version ?? 0)
      } catch (error) {
        // 42P01: no such table; 3F000: no such schema. Anything else is a real failure.
        const state = sqlState(error)
        if (state !== '42P01' && state !== '3F000')
          throw postgresError(`${where}: cannot read the schema version`, error)
      }
      if (version === LATEST_VERSION) {
        ok = true
        return
      }
      throw new SessionError({
        code: 'UNSUPPORTED_FORMAT',
        message:
          version < LATEST_VERSION
            ? `${where}: schema "${schemaName}" is at version ${version} and this build needs ${LATEST_VERSION}; run store.migrate() first`
            : `${where}: schema "${schemaName}" is at version ${version}, newer than this build of @deepseek-ai/dsh-session-postgres (${LATEST_VERSION}); upgrade it`,
        details: { foundVersion: version, supportedVersion: LATEST_VERSION },
      })
    },
  }
}
