import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  applyMutant,
  checkFirstTests,
  checkMutants,
  countOccurrences,
  PACKAGE_DIRS,
  PACKAGES,
} from '../mutation/mutant-list.mjs'
import { firstTests, firstTestsOf, mutants } from '../mutation/mutants.mjs'
import { journalOwnerAlive } from '../mutation/journal-owner.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('the planted-bug list of pnpm mutate', () => {
  it('still applies: every find string occurs exactly once in its file and the mutated file parses', () => {
    expect(checkMutants(mutants, root)).toEqual([])
  })

  it('names only existing test files as the first tier of a mutant', () => {
    expect(checkFirstTests(firstTests, root)).toEqual([])
    expect(checkFirstTests({ tools: [[/x/, ['no-such.test.ts']]] }, root)).toEqual([
      'firstTests tools /x/: packages/core/tools/test/no-such.test.ts does not exist',
    ])
    const lock = mutants.find((m) => m.id === 'lock-close-deletes-foreign-lock')
    expect(firstTestsOf(lock)).toContain('packages/core/session/test/lock-ownership.test.ts')
    const lease = mutants.find((m) => m.id === 'pg-append-ignores-lease')
    expect(firstTestsOf(lease)).toContain('packages/session/session-postgres/test/lease.test.ts')
    expect(
      firstTestsOf({ ...lock, package: 'context', file: 'packages/core/context/src/waterfall.ts' }),
    ).toEqual([])
  })

  it('covers every published package (no "private": true) with mutants of its own', () => {
    const published = readdirSync(join(root, 'packages'))
      .flatMap((area) => readdirSync(join(root, 'packages', area)).map((name) => `packages/${area}/${name}`))
      .filter((dir) => existsSync(join(root, dir, 'package.json')))
      .filter((dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).private !== true)
    expect(published.length).toBeGreaterThanOrEqual(15)
    expect(new Set(Object.values(PACKAGE_DIRS))).toEqual(new Set(published))
    const perPackage = Object.fromEntries(
      PACKAGES.map((pkg) => [pkg, mutants.filter((m) => m.package === pkg).length]),
    )
    expect(Object.entries(perPackage).filter(([, count]) => count < 3)).toEqual([])
    expect(mutants.length).toBeGreaterThanOrEqual(250)
  })

  it('reports a find string that no longer occurs once, and a mutant that does not parse', () => {
    const base = mutants.find((m) => m.package === 'tools')
    const problems = checkMutants(
      [
        { ...base, id: 'gone', find: 'this text is in no source file' },
        { ...base, id: 'broken', replace: `${base.replace} (` },
        { ...base, id: 'gone' },
      ],
      root,
    )
    expect(problems).toHaveLength(3)
    expect(problems[0]).toMatch(/^gone: .* occurs 0 times/)
    expect(problems[1]).toMatch(/^broken: the mutated .* does not parse/)
    expect(problems[2]).toMatch(/^gone: the id is used twice/)
  })

  it('applies a mutant by replacing its one occurrence, or the nth of the declared number', () => {
    expect(countOccurrences('a < b; c < d', '<')).toBe(2)
    expect(applyMutant('x = a < b', { find: 'a < b', replace: 'a <= b' })).toBe('x = a <= b')
    expect(applyMutant('a < b; a < b', { find: 'a < b', replace: 'a <= b', occurrences: 2, nth: 2 })).toBe(
      'a < b; a <= b',
    )
  })

  it('refuses a positional mutant whose count changed or whose nth is out of range', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-mutants-'))
    try {
      const file = 'packages/core/tools/src/twice.ts'
      mkdirSync(join(dir, 'packages/core/tools/src'), { recursive: true })
      writeFileSync(
        join(dir, file),
        'export const a = (i: number, n: number) => i !== n\nexport const b = (i: number, n: number) => i !== n\n',
      )
      const base = { ...mutants[0], package: 'tools', file, find: 'i !== n', replace: 'i < n' }
      const problems = checkMutants(
        [
          { ...base, id: 'fine', occurrences: 2, nth: 2 },
          { ...base, id: 'three', occurrences: 3, nth: 1 },
          { ...base, id: 'beyond', occurrences: 2, nth: 3 },
          { ...base, id: 'alone', nth: 1 },
          { ...base, id: 'unnamed' },
        ],
        dir,
      )
      expect(problems).toEqual([
        expect.stringMatching(/^three: .* occurs 2 times .*; it must occur exactly 3 times/),
        'beyond: occurrences (an integer > 1) and nth (1 to occurrences) go together',
        'alone: occurrences (an integer > 1) and nth (1 to occurrences) go together',
        expect.stringMatching(/^unnamed: .* occurs 2 times .*; it must occur exactly once/),
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('leaves a journal to the live run that wrote it: only a journal whose pnpm mutate process is gone is restored', async () => {
    const idle = 'setInterval(() => {}, 1000)'
    const start = async (args) => {
      const child = spawn(process.execPath, ['-e', idle, ...args], { stdio: 'ignore' })
      await once(child, 'spawn')
      return child
    }
    const run = await start(['scripts/mutate.mjs'])
    const runExited = once(run, 'exit')
    const other = await start([])
    try {
      expect(journalOwnerAlive({ pid: run.pid })).toBe(true)
      // the pid of a process that is not pnpm mutate (a reused pid), this process's own, none
      expect(journalOwnerAlive({ pid: other.pid })).toBe(false)
      expect(journalOwnerAlive({ pid: process.pid })).toBe(false)
      expect(journalOwnerAlive({})).toBe(false)
    } finally {
      run.kill()
      other.kill()
    }
    await runExited
    expect(journalOwnerAlive({ pid: run.pid })).toBe(false)
  })
})
