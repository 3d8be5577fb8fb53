import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'
import {
  DEFAULT_PREFIX,
  DEFAULT_QUEUE_NAME,
  readConnection,
  readMs,
  readName,
  type RedisConnection,
} from '../protocol/connection.ts'
import { remoteMatcher } from './remote-matcher.ts'

export interface RemoteDispatchOptions {
  /** Where the queue lives: a Redis URL or ioredis options. */
  readonly connection: RedisConnection
  /**
   * Which tools run on workers: names, or patterns where `*` matches any run of characters and
   * `?` one character (`['build', 'test_*']`). Every other tool runs in this process as before.
   */
  readonly remote: readonly string[]
  /** BullMQ queue name (default `dsh-tools`); the workers must use the same. */
  readonly queueName?: string
  /** BullMQ key prefix (default `bull`). */
  readonly prefix?: string
  /**
   * Put before every call id in its job id (e.g. the session id) when call ids may repeat across
   * the sessions sharing a queue: a job id held by another call is refused (`CallIdReused`).
   */
  readonly namespace?: string
  /** How often waiting calls' jobs are checked for a lost worker or a missed event (default 1 000 ms). */
  readonly checkIntervalMs?: number
  /** A waiting call fails `QueueUnreachable` when Redis has not answered for this long (default 30 000 ms). */
  readonly unreachableAfterMs?: number
  /** An enqueue that Redis has not confirmed after this long fails `DispatchFailed` (default 10 000 ms). */
  readonly enqueueTimeoutMs?: number
  /**
   * How long finished jobs (and cancellation markers) stay in Redis (default 24 h). A second
   * delivery of a call id within it gets the first result instead of running the body again.
   */
  readonly retainMs?: number
}

export interface ResolvedDispatchOptions {
  readonly connection: RedisConnection
  readonly isRemote: (toolName: string) => boolean
  readonly queueName: string
  readonly prefix: string
  readonly namespace: string | undefined
  readonly checkIntervalMs: number
  readonly unreachableAfterMs: number
  readonly enqueueTimeoutMs: number
  readonly retainMs: number
}

const WHERE = 'createRemoteDispatch(options)'

export function readDispatchOptions(options: unknown): ResolvedDispatchOptions {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${WHERE}: options must be an object, got ${describeValue(options)}`)
  const o = options as Partial<RemoteDispatchOptions>
  const namespace = o.namespace
  if (
    namespace !== undefined &&
    (typeof namespace !== 'string' || namespace === '' || namespace.length > 200)
  )
    throw invalidArgument(
      `${WHERE}: namespace must be a non-empty string of at most 200 characters, got ${describeValue(namespace)}`,
    )
  return {
    connection: readConnection(WHERE, o.connection),
    isRemote: remoteMatcher(WHERE, o.remote),
    queueName: readName(WHERE, 'queueName', o.queueName, DEFAULT_QUEUE_NAME),
    prefix: readName(WHERE, 'prefix', o.prefix, DEFAULT_PREFIX),
    namespace,
    checkIntervalMs: readMs(WHERE, 'checkIntervalMs', o.checkIntervalMs, 1_000, 10),
    unreachableAfterMs: readMs(WHERE, 'unreachableAfterMs', o.unreachableAfterMs, 30_000),
    enqueueTimeoutMs: readMs(WHERE, 'enqueueTimeoutMs', o.enqueueTimeoutMs, 10_000),
    retainMs: readMs(WHERE, 'retainMs', o.retainMs, 24 * 60 * 60 * 1000, 1000),
  }
}
