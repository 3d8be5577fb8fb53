import { hostname } from 'node:os'
import { parseArgs } from 'node:util'

export interface WorkerOptions {
  readonly redisUrl: string
  readonly queueName: string
  readonly name: string
  readonly concurrency: number
}

export const WORKER_USAGE = `usage: node dist/worker.js [options]
  --queue <name>       BullMQ queue (default dsh-scale-out)
  --name <name>        this worker's name (default <hostname>:<pid>)
  --concurrency <n>    bodies run at once (default 8)
  --redis <url>        default $DSH_REDIS_URL, else redis://127.0.0.1:6379`

/** The worker's command line and environment, checked: a bad value throws naming the flag. */
export function readWorkerOptions(argv: readonly string[], env: NodeJS.ProcessEnv): WorkerOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      queue: { type: 'string' },
      name: { type: 'string' },
      concurrency: { type: 'string' },
      redis: { type: 'string' },
    },
    strict: true,
  })
  const concurrency = Number(values.concurrency ?? 8)
  if (!Number.isInteger(concurrency) || concurrency <= 0) {
    throw new Error(`--concurrency must be a positive integer, got ${JSON.stringify(values.concurrency)}`)
  }
  return {
    redisUrl: values.redis ?? env.DSH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    queueName: values.queue ?? 'dsh-scale-out',
    name: values.name ?? `${hostname()}:${process.pid}`,
    concurrency,
  }
}
