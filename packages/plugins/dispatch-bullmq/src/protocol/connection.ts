import { Redis, type RedisOptions } from 'ioredis'
import type { ConnectionOptions } from 'bullmq'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'

/** A Redis URL (`redis://127.0.0.1:6379/0`, `rediss://…`) or ioredis options (`{ host, port, … }`). */
export type RedisConnection = string | RedisOptions

export function readConnection(where: string, value: unknown): RedisConnection {
  if (typeof value === 'string') {
    if (!/^rediss?:\/\//.test(value))
      throw invalidArgument(
        `${where}: connection must be a redis:// or rediss:// URL, got ${describeValue(value)}`,
      )
    return value
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as RedisOptions
  throw invalidArgument(
    `${where}: connection must be a Redis URL or ioredis options ({ host, port, … }), got ${describeValue(value)}`,
  )
}

/** What BullMQ's Queue, Worker and QueueEvents get: they open their own connections from it. */
export function bullConnection(connection: RedisConnection): ConnectionOptions {
  // ioredis options are what BullMQ's default (ioredis) client is made from
  return (typeof connection === 'string' ? { url: connection } : { ...connection }) as ConnectionOptions
}

/** A client of our own (cancellation messages, job checks), with `extra` settings on top. */
export function openClient(connection: RedisConnection, extra: RedisOptions): Redis {
  // (ioredis' own option types do not accept themselves under exactOptionalPropertyTypes)
  const options = (typeof connection === 'string' ? extra : { ...connection, ...extra }) as never
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis(options)
}

/** Resolves once `client` is ready; rejects with its error when it cannot connect. */
export function whenReady(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onReady = (): void => {
      client.off('error', onError)
      resolve()
    }
    const onError = (error: unknown): void => {
      client.off('ready', onReady)
      reject(error instanceof Error ? error : new Error(String(error)))
    }
    client.once('ready', onReady)
    client.once('error', onError)
  })
}

/** Names of queues and prefixes: what BullMQ accepts in a key without ambiguity. */
export function readName(where: string, field: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(value))
    throw invalidArgument(
      `${where}: ${field} must be 1–100 characters of [A-Za-z0-9_-], got ${describeValue(value)}`,
    )
  return value
}

/** A duration in milliseconds: a positive safe integer, at least `min`. */
export function readMs(where: string, field: string, value: unknown, fallback: number, min = 1): number {
  return readAtLeast(where, field, value, { fallback, min, unit: 'milliseconds' })
}

/** A safe integer of `unit`s, at least `min`; `fallback` when absent. */
export function readAtLeast(
  where: string,
  field: string,
  value: unknown,
  bound: { readonly fallback: number; readonly min: number; readonly unit: string },
): number {
  if (value === undefined) return bound.fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < bound.min)
    throw invalidArgument(
      `${where}: ${field} must be an integer ≥ ${bound.min} (${bound.unit}), got ${describeValue(value)}`,
    )
  return value
}

/** Keys and the channel both sides agree on, beside BullMQ's own keys of the queue. */
export function dispatchKeys(prefix: string, queueName: string) {
  const base = `${prefix}:${queueName}`
  return {
    job: (jobId: string) => `${base}:${jobId}`,
    lock: (jobId: string) => `${base}:${jobId}:lock`,
    cancelChannel: `${base}:dsh-cancel`,
    cancelMarker: (jobId: string) => `${base}:dsh-cancel:${jobId}`,
  }
}

export type DispatchKeys = ReturnType<typeof dispatchKeys>

export const DEFAULT_QUEUE_NAME = 'dsh-tools'
export const DEFAULT_PREFIX = 'bull'
