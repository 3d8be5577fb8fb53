import { join } from 'node:path'
import { createMemorySession, openJsonlSession, type Session } from '@deepseek-ai/dsh-session'

/** A way to make a session, and (for stores that persist) to reopen the same one. */
export interface StoreKind {
  readonly name: string
  create(dir: string, clock: () => Date): Session
  /** Closes `session` and opens the same log again; memory stores cannot. */
  reopen: ((session: Session, dir: string, clock: () => Date) => Session) | undefined
}

export const STORES: readonly StoreKind[] = [
  { name: 'memory', create: (_dir, clock) => createMemorySession({ clock }), reopen: undefined },
  {
    name: 'jsonl (fsync)',
    create: (dir, clock) => openJsonlSession(join(dir, 's.jsonl'), { clock }),
    reopen: (session, dir, clock) => {
      session.close()
      return openJsonlSession(join(dir, 's.jsonl'), { clock })
    },
  },
  {
    name: 'jsonl (write)',
    create: (dir, clock) => openJsonlSession(join(dir, 's.jsonl'), { clock, durability: 'write' }),
    reopen: (session, dir, clock) => {
      session.close()
      return openJsonlSession(join(dir, 's.jsonl'), { clock, durability: 'write' })
    },
  },
]

/** A clock that advances one second per reading, from 2024-01-01. */
export function steppingClock(): () => Date {
  let tick = 0
  return () => new Date(Date.UTC(2024, 0, 1) + 1000 * tick++)
}
