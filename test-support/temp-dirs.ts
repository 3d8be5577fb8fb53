import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'

/**
 * A maker of fresh temporary directories named `<prefix>…`, each removed after the test that made it
 * (`until: 'test'`, the default) or after the test file (`until: 'file'`, for fixtures a
 * `beforeAll` records once and every test reads). Call it at the top of a test file.
 */
export function useTempDirs(
  prefix: string,
  options: { readonly until?: 'test' | 'file' } = {},
): () => string {
  const made: string[] = []
  const cleanUp = (): void => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  }
  if (options.until === 'file') afterAll(cleanUp)
  else afterEach(cleanUp)
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    made.push(dir)
    return dir
  }
}
