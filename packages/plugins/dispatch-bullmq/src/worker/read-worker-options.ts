import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import type { AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import { invalidArgument } from '../errors.ts'
import {
  DEFAULT_PREFIX,
  DEFAULT_QUEUE_NAME,
  readConnection,
  readAtLeast,
  readMs,
  readName,
  type RedisConnection,
} from '../protocol/connection.ts'

export interface ToolWorkerOptions {
  /** Where the queue lives: a Redis URL or ioredis options. */
  readonly connection: RedisConnection
  /** The tool definitions this worker runs (their `execute` bodies), by name. */
  readonly tools: readonly AnyToolDefinition[]
  /** BullMQ queue name (default `dsh-tools`); the dispatcher must use the same. */
  readonly queueName?: string
  /** BullMQ key prefix (default `bull`). */
  readonly prefix?: string
  /** Bodies this worker runs at once (default 1). */
  readonly concurrency?: number
  /**
   * How long a job's lock lives without renewal (default 30 000 ms; renewed every half of it while
   * the body runs). A worker that dies is noticed by the caller this long after its last renewal,
   * so it bounds how long a crashed call waits; it must exceed the longest stall of this process's
   * event loop, or a live worker's calls are reported lost.
   */
  readonly lockDurationMs?: number
  /** How often this worker looks for jobs of dead workers (default: `lockDurationMs`). */
  readonly stalledIntervalMs?: number
  /** Largest value a body may return, in UTF-8 bytes of JSON (default 4 MiB, as `installTools`). */
  readonly maxResultBytes?: number
  /** What bodies get as `exec.ctx` (default: a fresh `createContext()`). */
  readonly ctx?: Context
  /** Shown by BullMQ as the job's `processedBy`. */
  readonly name?: string
  /**
   * The least time between two progress reports a body's `exec.reportProgress` sends to the caller
   * (default 100 ms, as `installTools`); closer ones are dropped, except one that reaches `total`.
   */
  readonly progressIntervalMs?: number
  /**
   * D11: how many replicas must have received a body's started mark before the body starts
   * (Redis `WAIT`; default 0). With replicas and failover, a mark that only the old primary had is
   * lost with it, and the caller would take a body that began for one that did not (D12). A mark
   * not confirmed within `markWaitMs` is not acted on: the body does not start, and the call is
   * `PIPELINE_FAILED` (`RemoteNotStarted`).
   */
  readonly markReplicas?: number
  /** How long the worker waits for `markReplicas` replicas to confirm the mark (default 1 000 ms). */
  readonly markWaitMs?: number
}

export interface ResolvedWorkerOptions {
  readonly connection: RedisConnection
  readonly tools: ReadonlyMap<string, AnyToolDefinition>
  readonly queueName: string
  readonly prefix: string
  readonly concurrency: number
  readonly lockDurationMs: number
  readonly stalledIntervalMs: number
  readonly maxResultBytes: number
  readonly ctx: Context | undefined
  readonly name: string | undefined
  readonly progressIntervalMs: number
  readonly markReplicas: number
  readonly markWaitMs: number
}

const WHERE = 'createToolWorker(options)'

export function readWorkerOptions(options: unknown): ResolvedWorkerOptions {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${WHERE}: options must be an object, got ${describeValue(options)}`)
  const o = options as Partial<ToolWorkerOptions>
  const connection = readConnection(WHERE, o.connection)
  if (!Array.isArray(o.tools) || o.tools.length === 0)
    throw invalidArgument(
      `${WHERE}: tools must be a non-empty array of tool definitions, got ${describeValue(o.tools)}`,
    )
  const tools = new Map<string, AnyToolDefinition>()
  o.tools.forEach((tool: unknown, index) => {
    const name = (tool as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || typeof (tool as { execute?: unknown }).execute !== 'function')
      throw invalidArgument(
        `${WHERE}: tools[${index}] must be a tool definition with a name and an execute body`,
      )
    if (tools.has(name))
      throw invalidArgument(`${WHERE}: tools[${index}]: a tool named "${name}" is listed twice`)
    tools.set(name, tool as AnyToolDefinition)
  })
  const lockDurationMs = readMs(WHERE, 'lockDurationMs', o.lockDurationMs, 30_000, 100)
  const ctx = o.ctx
  if (ctx !== undefined && (typeof ctx !== 'object' || ctx === null || typeof ctx.createScope !== 'function'))
    throw invalidArgument(`${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`)
  if (o.name !== undefined && typeof o.name !== 'string')
    throw invalidArgument(`${WHERE}: name must be a string, got ${describeValue(o.name)}`)
  return {
    connection,
    tools,
    queueName: readName(WHERE, 'queueName', o.queueName, DEFAULT_QUEUE_NAME),
    prefix: readName(WHERE, 'prefix', o.prefix, DEFAULT_PREFIX),
    concurrency: readBoundedInteger('concurrency', o.concurrency, { fallback: 1, min: 1, max: 10_000 }),
    lockDurationMs,
    stalledIntervalMs: readMs(WHERE, 'stalledIntervalMs', o.stalledIntervalMs, lockDurationMs, 10),
    maxResultBytes: readAtLeast(WHERE, 'maxResultBytes', o.maxResultBytes, {
      fallback: 4 * 1024 * 1024,
      min: 1,
      unit: 'bytes',
    }),
    ctx,
    name: o.name,
    progressIntervalMs: readBoundedInteger('progressIntervalMs', o.progressIntervalMs, {
      fallback: 100,
      min: 0,
      max: 3_600_000,
      unit: 'milliseconds',
    }),
    markReplicas: readBoundedInteger('markReplicas', o.markReplicas, { fallback: 0, min: 0, max: 100 }),
    markWaitMs: readMs(WHERE, 'markWaitMs', o.markWaitMs, 1_000),
  }
}

/** An optional integer option within `[min, max]`, `fallback` when absent. */
function readBoundedInteger(
  field: string,
  value: unknown,
  range: { readonly fallback: number; readonly min: number; readonly max: number; readonly unit?: string },
): number {
  if (value === undefined) return range.fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < range.min || value > range.max)
    throw invalidArgument(
      `${WHERE}: ${field} must be an integer from ${range.min} to ${range.max}${range.unit === undefined ? '' : ` (${range.unit})`}, got ${describeValue(value)}`,
    )
  return value
}
