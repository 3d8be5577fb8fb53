import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createAsyncSession,
  createMemorySession,
  openJsonlSession,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { describeSessionContract, type ContractStore } from './support/session-contract.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

function jsonlStore(durability: 'fsync' | 'write', numRuns: number): ContractStore {
  return {
    name: `jsonl (${durability})`,
    numRuns,
    open: async (clock) => {
      const path = join(tempDir(), 's.jsonl')
      const session = openJsonlSession(path, { clock, durability })
      return {
        session,
        reopen: async (next) => {
          session.close()
          return openJsonlSession(path, { clock: next, durability })
        },
      }
    },
  }
}

/** The asynchronous core over an in-memory "store" whose writes complete a tick later. */
const asyncMemoryStore: ContractStore = {
  name: 'async core (memory writes)',
  numRuns: 40,
  open: async (clock) => {
    const stored: SessionEvent[] = []
    const make = (with_: () => Date) =>
      createAsyncSession({
        clock: with_,
        initialEvents: stored.slice(),
        write: async (events) => {
          await Promise.resolve()
          stored.push(...events)
        },
      })
    const session = make(clock)
    return {
      session,
      reopen: async (next) => {
        await session.close()
        return make(next)
      },
    }
  },
}

const STORES: readonly ContractStore[] = [
  {
    name: 'memory',
    numRuns: 40,
    open: async (clock) => ({ session: createMemorySession({ clock }), reopen: undefined }),
  },
  jsonlStore('fsync', 10),
  jsonlStore('write', 40),
  asyncMemoryStore,
]

describe.each(STORES)('session contract: $name store', (store) => describeSessionContract(store))

describe('memory session options', () => {
  it('validates its options and the clock result', () => {
    expect(thrown(() => createMemorySessionWith({ clock: 5 })).message).toMatch(
      /options\.clock must be a function/,
    )
    expect(thrown(() => createMemorySessionWith({ clok: () => new Date() })).message).toMatch(
      /unknown key "clok"/,
    )
    const session = createMemorySessionWith({ clock: () => new Date(Number.NaN) })
    const error = thrown(() => session.append('t', 1))
    expect(error.message).toBe(
      'append("t", data): the session clock returned an instance of Date, not a valid Date',
    )
    expect(session.lastSeq).toBe(0)
  })
})

describe('event times', () => {
  it('T28: the time is read through Date.prototype, so a Date cannot pass off another string', () => {
    const forged = Object.assign(new Date(Date.UTC(2024, 0, 1)), { toISOString: () => 'not a time' })
    const session = createMemorySession({ clock: () => forged })
    expect(session.append('t', 1).time).toBe('2024-01-01T00:00:00.000Z')
  })

  it('T28: each distinct millisecond is formatted, and every event gets its own clock reading', () => {
    const readings = [0, 0, 1, 1000, 0]
    const session = createMemorySession({ clock: () => new Date(readings.shift()!) })
    const times = [1, 2, 3, 4, 5].map((i) => session.append('t', i).time)
    expect(times).toEqual([
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.001Z',
      '1970-01-01T00:00:01.000Z',
      '1970-01-01T00:00:00.000Z',
    ])
  })
})

function createMemorySessionWith(options: unknown): Session {
  return createMemorySession(options as never)
}
