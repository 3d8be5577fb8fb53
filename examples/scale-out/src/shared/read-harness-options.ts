import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

export interface HarnessOptions {
  readonly postgresUrl: string
  readonly redisUrl: string
  readonly sessionId: string
  readonly holder: string
  readonly leaseMs: number
  readonly schema: string
  readonly queueName: string
  readonly gateDir: string
  readonly prompt: string
}

export const HARNESS_USAGE = `usage: node dist/harness.js --session <id> [options]
  --session <id>     the session to start or resume (required)
  --holder <name>    how this process names itself in the lease (default <hostname>:<pid>)
  --lease-ms <n>     the session lease (default 30000)
  --schema <name>    PostgreSQL schema of the store (default public)
  --queue <name>     BullMQ queue of the workers (default dsh-scale-out)
  --gate-dir <dir>   where the slow tool waits for its files (default <tmpdir>/dsh-scale-out)
  --prompt <text>    the user's message of a new session
  --postgres <url>   default $DSH_TEST_POSTGRES_URL, else $DATABASE_URL
  --redis <url>      default $DSH_REDIS_URL, else redis://127.0.0.1:6379`

/** The harness's command line and environment, checked: a bad value throws naming the flag. */
export function readHarnessOptions(argv: readonly string[], env: NodeJS.ProcessEnv): HarnessOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      session: { type: 'string' },
      holder: { type: 'string' },
      'lease-ms': { type: 'string' },
      schema: { type: 'string' },
      queue: { type: 'string' },
      'gate-dir': { type: 'string' },
      prompt: { type: 'string' },
      postgres: { type: 'string' },
      redis: { type: 'string' },
    },
    strict: true,
  })
  if (values.session === undefined || values.session === '') throw new Error('--session is required')
  const leaseMs = Number(values['lease-ms'] ?? 30_000)
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new Error(`--lease-ms must be a positive integer, got ${JSON.stringify(values['lease-ms'])}`)
  }
  const postgresUrl = values.postgres ?? env.DSH_TEST_POSTGRES_URL ?? env.DATABASE_URL
  if (postgresUrl === undefined || postgresUrl === '') {
    throw new Error('no PostgreSQL URL: pass --postgres or set DSH_TEST_POSTGRES_URL or DATABASE_URL')
  }
  return {
    postgresUrl,
    redisUrl: values.redis ?? env.DSH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    sessionId: values.session,
    holder: values.holder ?? `${hostname()}:${process.pid}`,
    leaseMs,
    schema: values.schema ?? 'public',
    queueName: values.queue ?? 'dsh-scale-out',
    gateDir: values['gate-dir'] ?? join(tmpdir(), 'dsh-scale-out'),
    prompt: values.prompt ?? 'Digest alpha and beta, and wait for the two artifacts.',
  }
}
