import { describeValue } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { deleteSession } from './delete-session.ts'
import { listSessions } from './list-sessions.ts'
import { loadEvents } from './load-events.ts'
import { migrate } from './migrate.ts'
import { openPostgresSession } from './open-postgres-session.ts'
import { invalid, readStoreOptions, textProblem } from './read-store-options.ts'
import { createSchemaCheck } from './schema-check.ts'
import { tablesIn } from './tables.ts'
import type {
  ListSessionsOptions,
  OpenPostgresSessionOptions,
  PostgresSessionStore,
  PostgresSessionStoreOptions,
} from './types.ts'

/**
 * Sessions kept in PostgreSQL through a `pg.Pool`: `migrate()` creates the tables (run it once per
 * deployment step, explicitly; nothing else changes the schema), `open(id)` takes a session's lease
 * and returns an `AsyncSession` whose every append is a committed transaction when it resolves,
 * `load`, `list` and `delete` read and manage sessions without a lease.
 *
 * @example
 * const store = createPostgresSessionStore({ pool: new pg.Pool({ connectionString }) })
 * await store.migrate()
 * const session = await store.open('support-ticket-42')
 * await session.append('note', { text: 'hi' })
 * await session.close()
 */
export function createPostgresSessionStore(options: PostgresSessionStoreOptions): PostgresSessionStore {
  const settings = readStoreOptions('createPostgresSessionStore(options)', options)
  const { pool, schema, leaseMs, holder, logger } = settings
  const tables = tablesIn(schema)
  const schemaCheck = createSchemaCheck({ pool, tables, schemaName: schema })

  const checkId = (where: string, id: unknown): string => {
    const problem = textProblem(id)
    if (problem !== undefined) throw invalid(`${where}: the session id ${problem}`)
    return id as string
  }
  const label = (id: unknown): string =>
    typeof id === 'string' && id.length <= 200 ? JSON.stringify(id) : 'id'

  return Object.freeze({
    schema,
    leaseMs,
    holder,
    async migrate() {
      const result = await migrate({ pool, tables, schemaName: schema, where: 'store.migrate()' })
      schemaCheck.passed()
      return Object.freeze({ version: result.version, applied: Object.freeze([...result.applied]) })
    },
    async open(id: string, openOptions?: OpenPostgresSessionOptions) {
      const where = `store.open(${label(id)})`
      checkId(where, id)
      const clock = readOpenOptions(where, openOptions)
      await schemaCheck.check(where)
      return openPostgresSession({ pool, tables, id, holder, leaseMs, logger, clock, where })
    },
    async load(id: string): Promise<readonly SessionEvent[] | undefined> {
      const where = `store.load(${label(id)})`
      checkId(where, id)
      await schemaCheck.check(where)
      const events = await loadEvents({ pool, tables, id, where })
      return events === undefined ? undefined : Object.freeze(events)
    },
    async list(listOptions?: ListSessionsOptions) {
      const where = 'store.list(options)'
      await schemaCheck.check(where)
      return listSessions({ pool, tables, list: listOptions, where })
    },
    async delete(id: string) {
      const where = `store.delete(${label(id)})`
      checkId(where, id)
      await schemaCheck.check(where)
      return deleteSession({ pool, tables, id, where })
    },
  })
}

function readOpenOptions(where: string, options: unknown): (() => Date) | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid(`${where}: options must be an object, got ${describeValue(options)}`)
  for (const key of Object.keys(options)) {
    if (key !== 'clock')
      throw invalid(`${where}: options has an unknown key ${JSON.stringify(key)} (known: clock)`)
  }
  const { clock } = options as OpenPostgresSessionOptions
  if (clock !== undefined && typeof clock !== 'function')
    throw invalid(`${where}: options.clock must be a function returning a Date, got ${describeValue(clock)}`)
  return clock
}
