import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { startChildSession, type ChildOutcome } from './support/child-session.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

/** The other names of `path` (in `dir`): a symlink, a path through a symlinked directory, a relative and a `..` path. */
function otherNames(dir: string, path: string): Record<string, string> {
  symlinkSync(path, join(dir, 'link.jsonl'))
  symlinkSync(dir, join(dir, 'dir-link'))
  mkdirSync(join(dir, 'sub'))
  return {
    symlink: join(dir, 'link.jsonl'),
    'symlinked directory': join(dir, 'dir-link', 's.jsonl'),
    relative: relative(process.cwd(), path),
    'dot-dot': join(dir, 'sub', '..', 's.jsonl'),
  }
}

function eventsOf(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1, -1)
    .map((line) => (JSON.parse(line) as { data: unknown }).data)
}

describe('T42: one writer whatever name opens the file, in this process', () => {
  it('T42: a symlink, a symlinked directory, a relative path and a .. path all meet the lock', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const first = openJsonlSession(path, { durability: 'write' })
    first.append('first', 1)
    for (const [label, name] of Object.entries(otherNames(dir, path))) {
      const error = thrown(() => openJsonlSession(name))
      expect(error.code, label).toBe('LOCKED')
      expect(error.details.pid, label).toBe(process.pid)
      expect(error.message, label).toMatch(/this process: close the other session first/)
    }
    first.append('first', 2)
    first.close()
    expect(eventsOf(path)).toEqual([1, 2])
    // Once closed, any of the names opens the same file.
    const again = openJsonlSession(join(dir, 'link.jsonl'))
    expect(again.lastSeq).toBe(2)
    again.close()
  })

  it('T42: a hard link made while the file is open meets the same lock (the file is known by device and inode)', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const first = openJsonlSession(path, { durability: 'write' })
    first.append('first', 1)
    mkdirSync(join(dir, 'elsewhere'))
    const hardLink = join(dir, 'elsewhere', 'other-name.jsonl')
    linkSync(path, hardLink)
    const error = thrown(() => openJsonlSession(hardLink))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toContain(`it is open there as "${path}", the same file`)
    first.append('first', 2)
    first.close()
    expect(eventsOf(path)).toEqual([1, 2])
  })

  it('T42: a file with several hard links is refused by every name (HARD_LINKED), even when nobody holds it', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    openJsonlSession(path).close()
    linkSync(path, join(dir, 'twin.jsonl'))
    for (const name of [path, join(dir, 'twin.jsonl')]) {
      const error = thrown(() => openJsonlSession(name))
      expect(error.code).toBe('HARD_LINKED')
      expect(error.kind).toBe('user')
      expect(error.message).toMatch(/has 2 hard links; a session file must have a single name/)
    }
  })
})

describe('T42: one writer whatever name opens the file, across processes', () => {
  it('T42: while this process holds the file, another process is refused through every other name', async () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const held: JsonlSession = openJsonlSession(path, { durability: 'write' })
    held.append('parent', 1)
    const names = { ...otherNames(dir, path), 'same path': path }
    const tries = Object.entries(names).map(([label, name]) => ({
      label,
      child: startChildSession(label === 'relative' ? relative(dir, path) : name, { cwd: dir, appends: 1 }),
    }))
    const outcomes = await Promise.all(
      tries.map(async ({ label, child }) => [label, await child.result] as const),
    )
    for (const [label, outcome] of outcomes) {
      expect(outcome.outcome, label).toBe('refused')
      if (outcome.outcome !== 'refused') continue
      expect(outcome.code, label).toBe('LOCKED')
      expect(outcome.message, label).toContain(`locked by process ${process.pid}`)
    }
    // A hard link made while the file is held: the other process cannot find the lock from that
    // name, so it refuses any file with more than one link.
    mkdirSync(join(dir, 'elsewhere'))
    linkSync(path, join(dir, 'elsewhere', 'hard.jsonl'))
    const linked = startChildSession(join(dir, 'elsewhere', 'hard.jsonl'), { cwd: dir, appends: 1 })
    expect(await linked.result).toMatchObject({ outcome: 'refused', code: 'HARD_LINKED' })
    tries.push({ label: 'hard link', child: linked })
    await Promise.all(tries.map(({ child }) => child.finish()))
    held.append('parent', 2)
    held.close()
    expect(eventsOf(path)).toEqual([1, 2])
  }, 60_000)

  it('T42: while another process holds the file, this process is refused through a symlink and a relative path', async () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const holder = startChildSession(path, { cwd: dir, appends: 2 })
    const held: ChildOutcome = await holder.result
    expect(held.outcome).toBe('opened')
    symlinkSync(path, join(dir, 'link.jsonl'))
    for (const name of [join(dir, 'link.jsonl'), relative(process.cwd(), path)]) {
      const error = thrown(() => openJsonlSession(name))
      expect(error.code).toBe('LOCKED')
      expect(error.details.pid).toBe(held.pid)
    }
    await holder.finish()
    expect(eventsOf(path)).toEqual([
      { pid: held.pid, i: 0 },
      { pid: held.pid, i: 1 },
    ])
  }, 60_000)

  it("T42: two processes taking over a dead pid's lock at once: exactly one gets the file", async () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    openJsonlSession(path).close()
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    writeFileSync(`${path}.lock`, `${dead}\nleft-by-a-crash\n`)
    const racers = [0, 1].map(() => startChildSession(path, { cwd: dir, appends: 3 }))
    const outcomes = await Promise.all(racers.map((racer) => racer.result))
    const opened = outcomes.filter((outcome) => outcome.outcome === 'opened')
    expect(opened).toHaveLength(1)
    const winner = opened[0]!
    const loser = outcomes.find((outcome) => outcome !== winner)!
    expect(loser).toMatchObject({ outcome: 'refused', code: 'LOCKED' })
    expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0]).toBe(String(winner.pid))
    await Promise.all(racers.map((racer) => racer.finish()))
    expect(eventsOf(path)).toEqual([0, 1, 2].map((i) => ({ pid: winner.pid, i })))
  }, 60_000)
})
