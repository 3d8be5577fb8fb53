export { createPostgresSessionStore } from './create-postgres-session-store.ts'
export type {
  ListSessionsOptions,
  MigrateResult,
  OpenPostgresSessionOptions,
  PostgresClient,
  PostgresPool,
  PostgresQueryResult,
  PostgresSession,
  PostgresSessionInfo,
  PostgresSessionStore,
  PostgresSessionStoreOptions,
} from './types.ts'
