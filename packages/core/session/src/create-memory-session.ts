import type { MemorySessionOptions, Session } from './types.ts'
import { createSessionCore } from './create-session-core.ts'
import { createEventClock } from './event-clock.ts'
import { readClockOption, readStoreOptions } from './read-store-options.ts'

/**
 * A session kept in memory only: for tests, previews and sub-agents whose log is folded elsewhere.
 *
 * @example
 * const session = createMemorySession({ clock: () => new Date(0) })
 * session.append('note', { text: 'hi' }).seq // 1
 */
export function createMemorySession(options?: MemorySessionOptions): Session {
  const where = 'createMemorySession(options)'
  const read = readStoreOptions(where, options, ['clock'])
  return createSessionCore(
    {
      clock: createEventClock(readClockOption(where, read.clock)),
      initialEvents: [],
      persist: () => {},
      release: () => {},
    },
    {},
  )
}
