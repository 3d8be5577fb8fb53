import type { TestProject } from 'vitest/node'
import { startRedis } from '../scripts/redis-server.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis every test of the project uses: `inject('redisUrl')`. */
    redisUrl: string
  }
}

/**
 * vitest globalSetup of the projects that need a real Redis (the BullMQ dispatch plugin, the bench
 * smoke test). `DSH_REDIS_URL` (set by `npm run ci`, scripts/ci.mjs) wins; without it a throwaway
 * `redis-server` is started for the run and stopped after it, and a missing `redis-server` fails
 * the run saying how to install it: the tests never skip for want of a server. With
 * `DSH_REQUIRE_REDIS=1` (what `npm run ci` sets, so that every project uses its one server) a
 * missing `DSH_REDIS_URL` is an error.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.DSH_REDIS_URL
  if (given !== undefined && given !== '') {
    project.provide('redisUrl', given)
    return undefined
  }
  if (process.env.DSH_REQUIRE_REDIS === '1') {
    throw new Error(
      'DSH_REDIS_URL is not set, and DSH_REQUIRE_REDIS=1 asks for the server `npm run ci` starts ' +
        '(or node scripts/redis-server.mjs <command>). The Redis tests are never skipped.',
    )
  }
  const redis = await startRedis()
  project.provide('redisUrl', redis.url)
  return () => redis.stop()
}
