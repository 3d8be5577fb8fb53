import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findPrerequisites, installCommand, missingMessage } from '../prerequisites.mjs'

const dirs = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-prereq-'))
  dirs.push(dir)
  return dir
}
function executable(dir, name) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, name), '#!/bin/sh\n')
  chmodSync(join(dir, name), 0o755)
  return join(dir, name)
}

describe('npm run ci checks PostgreSQL, Redis and Chromium up front (scripts/prerequisites.mjs)', () => {
  it('finds none of the three on a bare machine, and says so in one message with one command', () => {
    const bare = tempDir()
    const found = findPrerequisites({
      env: { PATH: bare },
      chromiumDefault: join(bare, 'chromium'),
      postgresRoot: join(bare, 'postgresql'),
    })
    const missing = found.filter((p) => p.missing)
    expect(missing.map((p) => p.name)).toEqual(['PostgreSQL', 'Redis', 'Chromium'])
    const message = missingMessage(missing)
    expect(message).toContain(
      'missing: PostgreSQL (server binaries initdb and pg_ctl), Redis (redis-server), Chromium',
    )
    const commands = message.split('\n').filter((line) => line.includes('apt-get install'))
    expect(commands).toEqual([
      '  sudo apt-get update && sudo apt-get install -y postgresql redis-server chromium',
    ])
    expect(installCommand(missing, { root: true })).toBe(
      'apt-get update && apt-get install -y postgresql redis-server chromium',
    )
  })

  it("finds them on PATH and in Debian's PostgreSQL folder, and names a Chromium off Debian's path for the tests", () => {
    const root = tempDir()
    const bin = join(root, 'bin')
    executable(bin, 'redis-server')
    const chromium = executable(bin, 'chromium')
    executable(join(root, 'postgresql/16/bin'), 'initdb')
    executable(join(root, 'postgresql/16/bin'), 'pg_ctl')
    const found = findPrerequisites({
      env: { PATH: bin },
      chromiumDefault: join(root, 'no-chromium'),
      postgresRoot: join(root, 'postgresql'),
    })
    expect(found.filter((p) => p.missing)).toEqual([])
    expect(found.map((p) => p.found)).toEqual([
      join(root, 'postgresql/16/bin'),
      join(bin, 'redis-server'),
      chromium,
    ])
    expect(found[2].env).toEqual({ DSH_CHROMIUM: chromium })
  })

  it('needs no binaries for servers given by URL, and misses a DSH_CHROMIUM that is not executable', () => {
    const bare = tempDir()
    writeFileSync(join(bare, 'not-a-browser'), '')
    const found = findPrerequisites({
      env: {
        PATH: bare,
        DSH_TEST_POSTGRES_URL: 'postgres://dsh@127.0.0.1:5432/postgres',
        DSH_REDIS_URL: 'redis://127.0.0.1:6379',
        DSH_CHROMIUM: join(bare, 'not-a-browser'),
      },
      postgresRoot: join(bare, 'postgresql'),
    })
    expect(found.map((p) => Boolean(p.missing))).toEqual([false, false, true])
    expect(missingMessage(found.filter((p) => p.missing))).toContain(
      `missing: Chromium (DSH_CHROMIUM=${join(bare, 'not-a-browser')})`,
    )
  })
})
