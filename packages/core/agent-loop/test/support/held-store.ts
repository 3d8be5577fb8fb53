import {
  createMemorySession,
  type AppendOptions,
  type AsyncSession,
  type ReadOptions,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'

/** One append the store holds: durable only once the test releases it. */
export interface HeldAppend {
  readonly event: SessionEvent
  release(): void
}

/**
 * An `AsyncSession` whose every append stays pending until the test releases it, in any order
 * (a store with several connections can acknowledge commits out of order): numbering and checks
 * are a memory session's, made at `append`; durability is the test's call. It keeps what the
 * loop must never do as `violations`: an append that cites (`sourceEventSeqs`) an event not yet
 * durable, which for a `tool/result`, `approval/request` or `tool/began` means writing about a
 * call whose `tool/call` is not in the log yet (T25).
 */
export interface HeldStore {
  readonly session: AsyncSession
  /** Appends not yet released, oldest first. */
  readonly held: readonly HeldAppend[]
  /** Seqs released (durable). */
  readonly durable: ReadonlySet<number>
  /** Every event appended, in seq order, released or not. */
  readonly appended: readonly SessionEvent[]
  readonly violations: readonly string[]
  /** Releases `held[index]`. */
  release(index: number): void
}

export function heldStore(): HeldStore {
  const memory = createMemorySession()
  const held: HeldAppend[] = []
  const durable = new Set<number>()
  const violations: string[] = []
  let closed = false
  const durableEvents = (): SessionEvent[] => memory.events().filter((event) => durable.has(event.seq))

  const append = (type: string, data: unknown, options?: AppendOptions): Promise<SessionEvent> => {
    if (closed) return Promise.reject(new Error('closed'))
    let event: SessionEvent
    try {
      event = memory.append(type, data, options)
    } catch (error) {
      return Promise.reject(error as Error)
    }
    for (const cited of event.sourceEventSeqs ?? [])
      if (!durable.has(cited))
        violations.push(`${type} (seq ${event.seq}) cites seq ${cited}, not durable yet`)
    return new Promise<SessionEvent>((resolve) => {
      const entry: HeldAppend = {
        event,
        release: () => {
          durable.add(event.seq)
          resolve(event)
        },
      }
      held.push(entry)
    })
  }

  const session: AsyncSession = {
    append,
    events: () => Object.freeze(durableEvents()),
    read: (options?: ReadOptions) => memory.read(options).filter((event) => durable.has(event.seq)),
    get lastSeq() {
      // the last seq of the durable prefix: a gap (an append not yet acknowledged) ends it
      let seq = 0
      while (durable.has(seq + 1)) seq++
      return seq
    },
    get pending() {
      return held.length
    },
    get closed() {
      return closed
    },
    close: () => {
      closed = true
      return Promise.resolve()
    },
  }

  return {
    session,
    held,
    durable,
    get appended() {
      return memory.events()
    },
    violations,
    release(index) {
      const [entry] = held.splice(index, 1)
      entry?.release()
    },
  }
}
