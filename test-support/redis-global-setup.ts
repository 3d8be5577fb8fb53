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
 * smoke test). `DSH_REDIS_URL` (set by `.ci/run` through scripts/redis-server.mjs) wins; without
 * it a throwaway `redis-server` is started for the run and stopped after it. In CI, or with
 * `DSH_REQUIRE_REDIS=1`, a missing `DSH_REDIS_URL` is an error: the tests never skip for want of a
 * server.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.DSH_REDIS_URL
  if (given !== undefined && given !== '') {
    project.provide('redisUrl', given)
    return undefined
  }
  if (process.env.CI === 'true' || process.env.DSH_REQUIRE_REDIS === '1') {
    throw new Error(
      'DSH_REDIS_URL is not set: in CI the Redis tests need the server .ci/run starts ' +
        '(node scripts/redis-server.mjs <command>). They are never skipped.',
    )
  }
  const redis = await startRedis()
  project.provide('redisUrl', redis.url)
  return () => redis.stop()
}
