import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** A fresh temporary directory per call, removed after the test file. */
export function useTempDirs(): () => string {
  const made: string[] = []
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-timeline-'))
    made.push(dir)
    return dir
  }
}
