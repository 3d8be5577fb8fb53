import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { DispatchKeys } from '../protocol/connection.ts'
import type { JobWatch } from './job-watch.ts'

/** What every remote body of one dispatcher shares. */
export interface DispatchRuntime {
  readonly ready: Promise<void>
  readonly queue: Queue
  readonly commands: Redis
  readonly keys: DispatchKeys
  readonly watch: JobWatch
  readonly queueName: string
  readonly namespace: string | undefined
  readonly enqueueTimeoutMs: number
  readonly retainMs: number
}
