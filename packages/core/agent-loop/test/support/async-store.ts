import {
  SessionError,
  createAsyncSession,
  type AsyncSession,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { deferred, type Deferred } from '../../../../../test-support/deferred.ts'

/** An `AsyncSession` over memory, standing in for a database: `stored` is what is durable. */
export interface AsyncStore {
  readonly session: AsyncSession
  /** Durable events, in the order they were written. */
  readonly stored: SessionEvent[]
  /** Writes made so far (settled or not). */
  readonly writes: number
  /** Manual mode: writes waiting for `releaseNext`. */
  readonly waiting: number
  /** Manual mode: completes the oldest waiting write. */
  releaseNext(): void
}

/**
 * `auto` (default): each write completes on the next turn of the event loop, like a round trip.
 * `manual`: each write waits until the test releases it. `failWrite`: the write with that index
 * (0-based) rejects with `LOCKED`, as a database store does when another writer took the session.
 */
export function asyncStore(
  options: {
    readonly manual?: boolean
    readonly failWrite?: number
    readonly initial?: readonly SessionEvent[]
  } = {},
): AsyncStore {
  const stored: SessionEvent[] = [...(options.initial ?? [])]
  const gates: Deferred[] = []
  let writes = 0
  const session = createAsyncSession({
    initialEvents: options.initial ?? [],
    write: async (events) => {
      const index = writes++
      if (options.manual === true) {
        const gate = deferred()
        gates.push(gate)
        await gate.promise
      } else await new Promise((resolve) => setImmediate(resolve))
      if (index === options.failWrite) {
        throw new SessionError({ code: 'LOCKED', message: 'another writer took the session over' })
      }
      stored.push(...events)
    },
  })
  return {
    session,
    stored,
    get writes() {
      return writes
    },
    get waiting() {
      return gates.length
    },
    releaseNext: () => gates.shift()?.resolve(),
  }
}
