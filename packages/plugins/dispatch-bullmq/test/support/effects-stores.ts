// Where a cell of the effects crash matrix records its session: PostgreSQL, or a JSONL file in the
// test's directory (the caller's process and the test open the same file). Shared by the harness
// process (fixtures/effects-caller.ts) and the test.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  openJsonlSession,
  readJsonlSession,
  type AnySession,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import type { PostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import type { Cell } from './effects-cells.ts'

export interface CellStores {
  readonly postgres: () => PostgresSessionStore
  /** Where the JSONL cells' files are. */
  readonly dir: string
}

const jsonlPath = (stores: CellStores, sessionId: string): string => join(stores.dir, `${sessionId}.jsonl`)

/** Opens the cell's session: a PostgreSQL one, or the JSONL file (a dead holder's lock is taken over). */
export async function openCellSession(
  cell: Cell,
  stores: CellStores,
  sessionId: string,
): Promise<AnySession> {
  return cell.store === 'jsonl'
    ? openJsonlSession(jsonlPath(stores, sessionId))
    : await stores.postgres().open(sessionId)
}

/** The cell's events as stored now, without opening the session. */
export async function loadCellEvents(
  cell: Cell,
  stores: CellStores,
  sessionId: string,
): Promise<readonly SessionEvent[]> {
  if (cell.store === 'postgres') return (await stores.postgres().load(sessionId)) ?? []
  const path = jsonlPath(stores, sessionId)
  return existsSync(path) ? readJsonlSession(path).events : []
}
