import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'

const tempDir = useTempDirs('dsh-session-')
const packageDir = fileURLToPath(new URL('..', import.meta.url))

describe('README', () => {
  it('the example runs against the sources and prints what its comments say', async () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8')
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(example).toBeDefined()
    const dir = tempDir()
    const script = join(dir, 'example.ts')
    writeFileSync(script, example!)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', REGISTER_TS_HOOKS, script],
      // The example makes its own temp directory; keep it inside ours so it is cleaned up.
      { env: tsChildEnv(pathToFileURL(join(packageDir, 'package.json')), { TMPDIR: dir }) },
    )
    const expected = [
      ...example!.matchAll(/\/\/ (true|\d+ undefined|2|\{ ok: false.*\}|\[ 'orphan-result' \])$/gm),
    ].map((match) => match[1])
    expect(expected).toHaveLength(5)
    expect(stdout.trimEnd().split('\n')).toEqual(expected)
  }, 30_000)
})
