import { randomUUID } from 'node:crypto'
import { createAsyncSession, type SessionLogger } from '@deepseek-ai/dsh-session'
import { acquireLease } from './acquire-lease.ts'
import { startLeaseHeartbeat, warn } from './lease-heartbeat.ts'
import { loadEvents } from './load-events.ts'
import { postgresError } from './postgres-error.ts'
import type { Tables } from './tables.ts'
import type { PostgresPool, PostgresSession } from './types.ts'
import { createEventWriter, type LeaseState } from './write-events.ts'

/**
 * Takes the lease of session `id` (creating the session if needed), loads its events, and returns
 * the session: appends go through `createEventWriter`, a heartbeat renews the lease, and `close()`
 * releases it (only if still this writer's). If loading fails the lease is released again.
 */
export async function openPostgresSession(options: {
  readonly pool: PostgresPool
  readonly tables: Tables
  readonly id: string
  readonly holder: string
  readonly leaseMs: number
  readonly logger: SessionLogger | undefined
  readonly clock: (() => Date) | undefined
  readonly where: string
}): Promise<PostgresSession> {
  const { pool, tables, id, holder, leaseMs, logger, where } = options
  const token = randomUUID()
  await acquireLease({ pool, tables, id, token, holder, leaseMs, where })
  const lease: LeaseState = { lost: undefined, renewedAt: performance.now() }
  const release = async (): Promise<void> => {
    try {
      await pool.query(
        `UPDATE ${tables.sessions} SET lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL
          WHERE id = $1 AND lease_token = $2`,
        [id, token],
      )
    } catch (error) {
      warn(logger, `session "${id}": releasing the lease failed; it runs out within ${leaseMs} ms`, {
        sessionId: id,
        error: postgresError('release', error).message,
      })
    }
  }
  let heartbeat: { stop(): void } | undefined
  try {
    const events = (await loadEvents({ pool, tables, id, where })) ?? []
    heartbeat = startLeaseHeartbeat({ pool, tables, id, token, leaseMs, lease, logger })
    const stop = heartbeat.stop
    return createAsyncSession(
      {
        initialEvents: events,
        write: createEventWriter({ pool, tables, id, token, leaseMs, lease }),
        release: async () => {
          stop()
          await release()
        },
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      },
      { id },
    )
  } catch (error) {
    heartbeat?.stop()
    await release()
    throw error
  }
}
