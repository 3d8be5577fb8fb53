import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TempDir {
  readonly path: string
  file(name: string): string
  remove(): void
}

/** A private directory for JSONL sessions, removed when the case is done. */
export function createTempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `dsh-bench-${prefix}-`))
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  }
}
