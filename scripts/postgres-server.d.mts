/** The environment variable that carries a PostgreSQL URL to tests and benchmarks. */
export declare const URL_VARIABLE: 'DSH_TEST_POSTGRES_URL'

/** The directory holding `initdb` and `pg_ctl`; throws saying how to install them when there is none. */
export declare function findPostgresBin(
  env?: Readonly<Record<string, string | undefined>>,
  options?: { debian?: string },
): string

export interface ThrowawayPostgres {
  /** `postgres://dsh@127.0.0.1:<port>/postgres` (trust authentication, 127.0.0.1 only). */
  readonly url: string
  readonly dataDir: string
  /** Stops the server and removes its directory; idempotent. */
  stop(): Promise<void>
}

/** Starts a throwaway server on a free 127.0.0.1 port with a fresh data directory. */
export declare function startPostgres(options?: { log?: (line: string) => void }): Promise<ThrowawayPostgres>
