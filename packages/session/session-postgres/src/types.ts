import type { AsyncSession, SessionEvent, SessionLogger } from '@deepseek-ai/dsh-session'

/** What a query returns; the part of `pg`'s `QueryResult` the store reads. */
export interface PostgresQueryResult {
  readonly rows: readonly Record<string, unknown>[]
  readonly rowCount: number | null
}

/** A connection checked out of a pool (`pg.PoolClient`). */
export interface PostgresClient {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  release(error?: Error | boolean): void
}

/**
 * A `pg.Pool` (node-postgres), or anything with its `query` and `connect`. The store runs one
 * statement per `query` (each its own transaction) and checks a client out only to migrate. It
 * never ends the pool, and never listens to it: give the pool an `'error'` listener, as pg asks.
 */
export interface PostgresPool {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  connect(): Promise<PostgresClient>
}

export interface PostgresSessionStoreOptions {
  readonly pool: PostgresPool
  /** Schema holding the store's tables (default `public`); lower-case letters, digits and `_`. */
  readonly schema?: string
  /**
   * How long a writer holds a session without renewing it, in ms (default 30,000; at least 100). A
   * writer renews every third of it while open, and with every append; a session whose holder
   * stopped renewing (crashed, partitioned, paused) may be taken over this long after its last
   * renewal.
   */
  readonly leaseMs?: number
  /** How this process names itself to other writers, in `LOCKED` errors and `list()` (default `<hostname>:<pid>`). */
  readonly holder?: string
  /** Told when a lease renewal or release fails (it is retried, or the lease simply runs out). */
  readonly logger?: SessionLogger
}

export interface OpenPostgresSessionOptions {
  /** Source of event times (default `() => new Date()`). */
  readonly clock?: () => Date
}

/** A session held by this process: an `AsyncSession` whose appends are committed transactions. */
export interface PostgresSession extends AsyncSession {
  readonly id: string
}

/** One row of `list()`. */
export interface PostgresSessionInfo {
  readonly id: string
  /** ISO-8601, when the session was first opened. */
  readonly createdAt: string
  readonly lastSeq: number
  /** Who holds (or last held without releasing) the session; `undefined` when released. */
  readonly lease: { readonly holder: string; readonly expiresAt: string; readonly live: boolean } | undefined
}

export interface ListSessionsOptions {
  /** Only sessions whose id sorts after this one (byte order): the last id of the previous page. */
  readonly after?: string
  /** At most this many (default 100, at most 1,000). */
  readonly limit?: number
}

/** What `migrate()` did. */
export interface MigrateResult {
  /** The schema version now in the database. */
  readonly version: number
  /** The versions this call applied (none when it was up to date). */
  readonly applied: readonly number[]
}

/** Sessions kept in PostgreSQL. */
export interface PostgresSessionStore {
  readonly schema: string
  readonly leaseMs: number
  readonly holder: string
  /** Creates or upgrades the store's tables; safe to run from several processes at once. */
  migrate(): Promise<MigrateResult>
  /**
   * Opens (or creates) the session `id` and takes its lease: rejects with `LOCKED` while another
   * writer holds it, and takes it over once that writer's lease has run out.
   */
  open(id: string, options?: OpenPostgresSessionOptions): Promise<PostgresSession>
  /** The session's events as stored (no lease needed), or `undefined` when there is no such session. */
  load(id: string): Promise<readonly SessionEvent[] | undefined>
  /** Sessions in id order (byte order), a page at a time. */
  list(options?: ListSessionsOptions): Promise<readonly PostgresSessionInfo[]>
  /**
   * Deletes the session and its events; `false` when there was none. Rejects with `LOCKED` while a
   * writer holds it (a lease that ran out does not count).
   */
  delete(id: string): Promise<boolean>
}
