import { describeValue } from '@deepseek-ai/dsh-llm'
import { appendWhere, createEventBuilder } from './create-event-builder.ts'
import { SessionError } from './errors.ts'
import { createEventClock } from './event-clock.ts'
import { readClockOption, readStoreOptions } from './read-store-options.ts'
import { logView, newLogReadings } from './log-views.ts'
import { readEvents } from './read-events.ts'
import type { AppendOptions, AsyncSession, ReadOptions, SessionEvent } from './types.ts'

/**
 * `setImmediate` as it was when this module loaded: a test's fake timers (vitest's and Jest's fake
 * `setImmediate` by default) must not hold a session's writes until the test advances its clock.
 */
const runOnNextTurn: (callback: () => void) => unknown = globalThis.setImmediate

export interface AsyncSessionOptions {
  /** Events already in the store, seqs 1..n, e.g. read back with `parseSessionEvent`. */
  readonly initialEvents?: readonly SessionEvent[]
  /**
   * Makes `events` (consecutive seqs, in order) durable, all or none, and resolves once they are;
   * rejects (preferably with a `SessionError`: `LOCKED`, `IO`, …) when it cannot. Never called
   * again before the previous call settled, nor after one rejected.
   */
  readonly write: (events: readonly SessionEvent[]) => PromiseLike<void>
  /** Releases the store's hold on the session; called once, by the first `close()`, after the last write settled. */
  readonly release?: () => void | PromiseLike<void>
  /** Source of event times (default `() => new Date()`). */
  readonly clock?: () => Date
  /** Most events handed to one `write` (default 100); appends made while a write runs are grouped. */
  readonly maxBatch?: number
}

interface Entry {
  readonly event: SessionEvent
  readonly hasOptions: boolean
  readonly resolve: (event: SessionEvent) => void
  readonly reject: (error: SessionError) => void
}

const DEFAULT_MAX_BATCH = 100
const noop = (): void => {}

/**
 * The store-independent half of an `AsyncSession`, for store authors: validation, snapshots and
 * seq numbering exactly as in `Session.append`, then an ordered write queue. Appends made while a
 * write runs are handed to the next `write` together (group commit), so a burst costs one round
 * trip per batch, not per event. Each append resolves when the write holding its event resolved;
 * the first write that rejects rejects its appends and every later one, and the session refuses
 * appends from then on (the store may or may not have kept the events of a write whose
 * acknowledgment was lost; reopening it tells). `extra` adds store-specific read-only members.
 *
 * @example
 * const rows: string[] = []
 * const session = createAsyncSession({ write: async (events) => void rows.push(...events.map((e) => JSON.stringify(e))) })
 * await session.append('note', { text: 'hi' }) // { seq: 1, … } once written
 */
export function createAsyncSession<Extra extends object = Record<never, never>>(
  options: AsyncSessionOptions,
  extra?: Extra,
): AsyncSession & Extra {
  const where = 'createAsyncSession(options)'
  const read = readStoreOptions(where, options, ['initialEvents', 'write', 'release', 'clock', 'maxBatch'])
  const write = readFunction(where, 'write', read.write, true) as AsyncSessionOptions['write']
  const release = readFunction(where, 'release', read.release, false) as AsyncSessionOptions['release']
  const maxBatch = readMaxBatch(where, read.maxBatch)
  const log: SessionEvent[] = readInitialEvents(where, read.initialEvents)
  const { build } = createEventBuilder(createEventClock(readClockOption(where, read.clock)))
  let view: readonly SessionEvent[] | undefined
  const readings = newLogReadings()
  let queue: Entry[] = []
  let writing: readonly Entry[] | undefined
  let scheduled = false
  let failure: SessionError | undefined
  let closed = false
  let closing: Promise<void> | undefined
  let idle: (() => void) | undefined

  const pending = (): number => queue.length + (writing?.length ?? 0)

  const append = (type: string, data: unknown, appendOptions?: AppendOptions): Promise<SessionEvent> => {
    try {
      if (closed) {
        throw new SessionError({
          code: 'CLOSED',
          message: `${appendWhere(type, appendOptions)}: the session is closed`,
        })
      }
      if (failure !== undefined) {
        throw new SessionError({
          code: failure.code,
          message: `${appendWhere(type, appendOptions)}: the session refuses appends since a write failed (${failure.message}); open it again to continue`,
          cause: failure,
          details: failure.details,
        })
      }
      const event = build(type, data, appendOptions, log.length + pending() + 1)
      return new Promise<SessionEvent>((resolve, reject) => {
        queue.push({ event, hasOptions: appendOptions !== undefined, resolve, reject })
        if (!scheduled && writing === undefined) {
          scheduled = true
          // Appends made before the event loop turns share the first write: an immediate runs after
          // every timer callback, I/O callback and microtask of this turn, so the appends of calls
          // that start after an await (the next call of a step, after the previous one's policy)
          // join this write, and so do the results of bodies whose timers or replies arrive in one
          // turn (a nextTick ran between two timer callbacks: ten results took up to four writes).
          runOnNextTurn(flush)
        }
      })
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  const flush = (): void => {
    scheduled = false
    if (writing !== undefined || queue.length === 0) return
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch)
    queue = batch === queue ? [] : queue.slice(maxBatch)
    writing = batch
    let written: PromiseLike<void>
    try {
      written = write(Object.freeze(batch.map((entry) => entry.event)))
    } catch (error) {
      written = Promise.reject(error as Error)
    }
    Promise.resolve(written).then(
      () => settled(batch, undefined),
      (error: unknown) => settled(batch, error === undefined ? new Error('write rejected') : error),
    )
  }

  const settled = (batch: readonly Entry[], error: unknown): void => {
    writing = undefined
    if (error === undefined) {
      for (const entry of batch) log.push(entry.event)
      view = undefined
      for (const entry of batch) entry.resolve(entry.event)
      if (queue.length > 0) flush()
    } else {
      const cause = asSessionError(error)
      failure = cause
      for (const entry of batch) entry.reject(failed(entry, cause, cause.message))
      const behind = queue
      queue = []
      for (const entry of behind) {
        entry.reject(
          failed(
            entry,
            cause,
            `not written, because an earlier append of this session failed (${cause.message})`,
          ),
        )
      }
    }
    if (pending() === 0) idle?.()
  }

  const close = (): Promise<void> => {
    if (closing !== undefined) return closing
    closed = true
    const drained = pending() === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))
    closing = drained
      .then(() => release?.())
      // The store reports its own release failures; closing always completes.
      .then(noop, noop)
    return closing
  }

  return Object.freeze({
    ...(extra ?? ({} as Extra)),
    append,
    events: (): readonly SessionEvent[] => (view ??= logView(log, readings)),
    read: (readOptions?: ReadOptions): readonly SessionEvent[] => readEvents(log, readOptions),
    close,
    get lastSeq(): number {
      return log.length
    },
    get pending(): number {
      return pending()
    },
    get closed(): boolean {
      return closed
    },
  })
}

function failed(entry: Entry, cause: SessionError, what: string): SessionError {
  return new SessionError({
    code: cause.code,
    kind: cause.kind,
    message: `${appendWhere(entry.event.type, entry.hasOptions ? {} : undefined)}: ${what}`,
    cause,
    details: cause.details,
  })
}

function asSessionError(error: unknown): SessionError {
  if (SessionError.isInstance(error)) return error
  const detail = error instanceof Error ? error.message : describeValue(error)
  return new SessionError({ code: 'IO', message: `the store could not write: ${detail}`, cause: error })
}

function readFunction(where: string, key: string, value: unknown, required: boolean): unknown {
  if (value === undefined && !required) return undefined
  if (typeof value === 'function') return value
  throw new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${where}: options.${key} must be a function, got ${describeValue(value)}`,
  })
}

function readMaxBatch(where: string, value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_BATCH
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value
  throw new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${where}: options.maxBatch must be a positive integer, got ${describeValue(value)}`,
  })
}

function readInitialEvents(where: string, value: unknown): SessionEvent[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: options.initialEvents must be an array of events, got ${describeValue(value)}`,
    })
  }
  const events = value as unknown[]
  events.forEach((event, index) => {
    const ok =
      typeof event === 'object' &&
      event !== null &&
      Object.isFrozen(event) &&
      (event as { seq?: unknown }).seq === index + 1
    if (!ok) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: options.initialEvents[${index}] must be a frozen event with seq ${index + 1} (see parseSessionEvent), got ${describeValue(event)}`,
      })
    }
  })
  return events.slice() as SessionEvent[]
}
