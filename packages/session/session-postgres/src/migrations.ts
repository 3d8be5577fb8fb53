import type { Tables } from './tables.ts'

export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: (tables: Tables) => string
}

/**
 * The schema, one step per version, applied in order by `migrate()` and never edited once
 * released: a change is a new version.
 *
 * - `dsh_sessions`: one row per session: `last_seq` (the seq of its last event; the write of a new
 *   event is conditional on it, so seqs stay dense) and the lease (`lease_token` of the holder,
 *   `lease_holder` naming it, `lease_expires_at` in database time).
 * - `dsh_session_events`: one row per event; `(session_id, seq)` is the primary key, so a seq can
 *   exist once. `event` is the event exactly as `JSON.stringify` wrote it and is what the store
 *   reads back (lossless: key order, number text, every string). `data` is a `jsonb` copy of
 *   `event.data` for queries and indexes; jsonb normalizes (keys sorted, numbers as decimals) and
 *   cannot hold `\u0000` or lone surrogates, so it is NULL for events containing them. `type` is a
 *   copy for queries (NUL and lone surrogates replaced by U+FFFD).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events and leases',
    sql: ({ sessions, events }) => `
      CREATE TABLE ${sessions} (
        id text PRIMARY KEY CHECK (id <> '' AND length(id) <= 200),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seq integer NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
        lease_token uuid,
        lease_holder text,
        lease_expires_at timestamptz,
        CHECK ((lease_token IS NULL) = (lease_expires_at IS NULL))
      );
      CREATE TABLE ${events} (
        session_id text NOT NULL REFERENCES ${sessions} (id) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 1),
        type text NOT NULL,
        event text NOT NULL,
        data jsonb,
        appended_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, seq)
      );
      COMMENT ON COLUMN ${events}.event IS
        'The event as JSON.stringify wrote it; what the store reads back (lossless).';
      COMMENT ON COLUMN ${events}.data IS
        'jsonb copy of event.data for queries (normalized); NULL when jsonb cannot hold the event.';
    `,
  },
]

/** The schema version this build reads and writes. */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version
