import pg from 'pg'
import { afterAll, describe, inject, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

// The example uses the default schema (public) of the test run's server, and cleans up after itself;
// the tables it migrated are dropped here.
afterAll(async () => {
  const pool = new pg.Pool({ connectionString: inject('postgresUrl') })
  await pool.query(
    'DROP TABLE IF EXISTS public.dsh_session_events, public.dsh_sessions, public.dsh_session_migrations',
  )
  await pool.end()
})

describe('README', () => {
  it(
    'T28/T42: the example runs against a real server and prints what its comments say',
    { timeout: 30_000 },
    async () => {
      process.env.DATABASE_URL = inject('postgresUrl')
      await checkReadmeExample({
        packageUrl: new URL('../', import.meta.url),
        load: () => import('../examples/readme-example.ts'),
        lines: 5,
      })
      expectEveryBlockIsAnExample(new URL('../', import.meta.url), ['examples/readme-example.ts'])
    },
  )
})
