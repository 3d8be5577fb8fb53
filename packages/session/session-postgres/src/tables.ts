/** The store's qualified table names in one schema (the schema is checked to be a plain identifier). */
export interface Tables {
  readonly schema: string
  readonly sessions: string
  readonly events: string
  readonly migrations: string
}

export function tablesIn(schema: string): Tables {
  const quoted = `"${schema}"`
  return {
    schema: quoted,
    sessions: `${quoted}.dsh_sessions`,
    events: `${quoted}.dsh_session_events`,
    migrations: `${quoted}.dsh_session_migrations`,
  }
}

/** An ISO-8601 UTC text of a timestamptz column, as JavaScript writes it. */
export function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}
