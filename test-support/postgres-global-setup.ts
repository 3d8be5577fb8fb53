import type { TestProject } from 'vitest/node'
import { URL_VARIABLE, startPostgres, type ThrowawayPostgres } from '../scripts/postgres-server.mjs'

declare module 'vitest' {
  interface ProvidedContext {
    /** The PostgreSQL server the tests of this project use. */
    postgresUrl: string
  }
}

interface Shared {
  server: Promise<ThrowawayPostgres> | undefined
  users: number
}

// Several projects (the store's tests, the bench smoke test) share one throwaway server per run.
const KEY = Symbol.for('dsh.test.postgres-server')
const shared: Shared = ((globalThis as Record<symbol, Shared | undefined>)[KEY] ??= {
  server: undefined,
  users: 0,
})

/**
 * The real PostgreSQL server of a test project (vitest `globalSetup`): the one named by
 * DSH_TEST_POSTGRES_URL (what `npm run ci` sets, scripts/ci.mjs), or else a throwaway server
 * started here and stopped after the run. With DSH_REQUIRE_POSTGRES=1 (what `npm run ci` sets, so
 * that every project uses its one server) a missing DSH_TEST_POSTGRES_URL is an error; without
 * PostgreSQL binaries the run fails here, saying how to install them: these tests are never skipped.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env[URL_VARIABLE]
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given)
    return undefined
  }
  if (process.env.DSH_REQUIRE_POSTGRES === '1') {
    throw new Error(
      `${URL_VARIABLE} is not set, and DSH_REQUIRE_POSTGRES=1 asks for the server \`npm run ci\` starts ` +
        '(or node scripts/with-postgres.mjs -- <command>). The PostgreSQL tests are never skipped.',
    )
  }
  shared.users++
  shared.server ??= startPostgres()
  try {
    project.provide('postgresUrl', (await shared.server).url)
  } catch (error) {
    shared.users--
    shared.server = undefined
    throw error
  }
  return async () => {
    if (--shared.users > 0) return
    const server = shared.server
    shared.server = undefined
    await (await server)?.stop()
  }
}
