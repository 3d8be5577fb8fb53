import { SessionError } from './errors.ts'
import type { EventClock } from './event-clock.ts'
import { appendWhere, createEventBuilder } from './create-event-builder.ts'
import { logView, newLogReadings } from './log-views.ts'
import { readEvents } from './read-events.ts'
import { stampCitingEntry } from './tool-events/append-citing.ts'
import type { AppendOptions, ReadOptions, Session, SessionEvent } from './types.ts'

export interface SessionCoreOptions {
  readonly clock: EventClock
  /** Events already in the store (validated, frozen, seqs 1..n). */
  readonly initialEvents: readonly SessionEvent[]
  /**
   * Makes one event durable before `append` returns, or holds it for the next `commit` (a store
   * that groups writes, T59); throws `SessionError` to refuse it.
   */
  readonly persist: (event: SessionEvent) => void
  /**
   * Makes the events `persist` held durable (T59); throws `SessionError` when it cannot. Absent for
   * stores whose every event is durable when `persist` returns.
   */
  readonly commit?: () => void
  /** Releases the store's resources (committing what it holds first); called once, on the first `close()`. */
  readonly release: () => void
}

const noCommit = (): void => {}

/** How `appendCiting`'s errors name the options it was given as values: `append("t", data, options)`. */
const CITED_OPTIONS = Object.freeze({})

/**
 * The store-independent part of a synchronous session: validation, snapshots, seq numbering and
 * reads. `extra` adds store-specific read-only members (the file store's `path`, `repaired`).
 */
export function createSessionCore<Extra extends object>(
  options: SessionCoreOptions,
  extra: Extra,
): Session & Extra {
  const log: SessionEvent[] = [...options.initialEvents]
  const { persist } = options
  const { build, buildCiting } = createEventBuilder(options.clock)
  let view: readonly SessionEvent[] | undefined
  const readings = newLogReadings()
  let closed = false

  /** The new event enters the log only once the store took it (`persist` throws to refuse it). */
  const record = (event: SessionEvent): SessionEvent => {
    persist(event)
    log.push(event)
    view = undefined
    return event
  }

  const refuseClosed = (type: string, appendOptions: unknown): never => {
    throw new SessionError({
      code: 'CLOSED',
      message: `${appendWhere(type, appendOptions)}: the session is closed`,
    })
  }

  const append = (type: string, data: unknown, appendOptions?: AppendOptions): SessionEvent => {
    if (closed) refuseClosed(type, appendOptions)
    return record(build(type, data, appendOptions, log.length + 1))
  }

  // `appendCiting`'s entry: `append` with `{ surfaceOp, sourceEventSeqs: [cited] }` given as values.
  const appendCitingEntry = (
    type: string,
    data: unknown,
    cited: number,
    surfaceOp: 'append' | undefined,
  ): SessionEvent => {
    if (closed) refuseClosed(type, CITED_OPTIONS)
    return record(buildCiting(type, data, cited, surfaceOp, log.length + 1))
  }

  const events = (): readonly SessionEvent[] => (view ??= logView(log, readings))

  const read = (readOptions?: ReadOptions): readonly SessionEvent[] => readEvents(log, readOptions)

  const commit = options.commit ?? noCommit

  const close = (): void => {
    if (closed) return
    closed = true
    options.release()
  }

  const own = {
    append,
    commit,
    events,
    read,
    close,
    get lastSeq(): number {
      return log.length
    },
    get closed(): boolean {
      return closed
    },
  }
  // Copied as descriptors, so getters (`extra`'s included) stay getters: a spread would read each once.
  const session = Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(extra), ...Object.getOwnPropertyDescriptors(own) },
  )
  stampCitingEntry(session, appendCitingEntry)
  return Object.freeze(session) as Session & Extra
}
