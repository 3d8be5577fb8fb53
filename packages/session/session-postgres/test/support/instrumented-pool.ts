import type pg from 'pg'
import type { PostgresPool } from '@deepseek-ai/dsh-session-postgres'

/** A pool in front of a real one that counts statements and can fail the ones the test picks. */
export interface InstrumentedPool extends PostgresPool {
  /** Every statement sent, in order (its first line, trimmed). */
  readonly statements: string[]
  /** When set, a statement for which it returns an error fails with it (before reaching the server, or after with `after: true`). */
  fail: ((statement: string) => { readonly error: Error; readonly after?: boolean } | undefined) | undefined
}

export function instrumentedPool(pool: pg.Pool): InstrumentedPool {
  const instrumented: InstrumentedPool = {
    statements: [],
    fail: undefined,
    async query(text, values) {
      instrumented.statements.push(text.trim().split('\n')[0]!.trim())
      const failure = instrumented.fail?.(text)
      if (failure !== undefined && failure.after !== true) throw failure.error
      const result = await pool.query(text, values as unknown[] | undefined)
      if (failure !== undefined) throw failure.error
      return result
    },
    connect: () => pool.connect(),
  }
  return instrumented
}
