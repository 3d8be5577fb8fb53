import { linkSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { openJsonlSessionWith } from '../src/jsonl/open-jsonl-session.ts'
import { nodeSessionFs } from '../src/jsonl/session-fs.ts'
import { readLockFile } from '../src/lock/lock-file.ts'
import { createAbandonWatch, HALF_WRITTEN_GRACE_MS, removeIfUnchanged } from '../src/lock/stale-files.ts'
import {
  createWorld,
  simulatedProcess,
  systemError,
  type SimulatedProcess,
} from './support/simulated-host.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

const dataOf = (session: JsonlSession): unknown[] => session.events().map((event) => event.data)

function reopenedData(path: string): unknown[] {
  const session = openJsonlSession(path)
  const data = dataOf(session)
  session.close()
  return data
}

/**
 * Creates `lock` again, empty, as another creator would, on an inode other than `ino`. A file system
 * may hand the freed inode number to the next file at once (CI saw it on Node 22): then the new file
 * is moved aside, holding that number, and the lock is created again. A replacement that gets the
 * very inode number and the same text back cannot be told apart from the file that was judged.
 */
function recreateWithAnotherInode(dir: string, lock: string, ino: number) {
  for (let attempt = 0; attempt < 20; attempt++) {
    writeFileSync(lock, '')
    const created = readLockFile(nodeSessionFs, lock)!
    if (created.stat.ino !== ino) return created
    renameSync(lock, join(dir, `hold-inode-${attempt}`))
  }
  throw new Error(`the file system gave ${lock} inode ${ino} again 20 times`)
}

describe('T42: a writer that lost its lock writes nothing more', () => {
  it('T42: a lock removed and re-created by another writer: the old holder gets LOCKED on its next append and its close leaves the new lock', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const first = openJsonlSession(path, { durability: 'write' })
    first.append('first', 1)
    rmSync(`${path}.lock`) // someone "cleans up" a lock they believe is stale
    const other = simulatedProcess(createWorld())
    const second = openJsonlSessionWith(other.host, path, { durability: 'write' })
    const error = thrown(() => first.append('first', 2))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toMatch(
      new RegExp(
        `no longer holds ".*s\\.jsonl": the lock file ".*s\\.jsonl\\.lock" now belongs to process ${other.pid}; nothing was written`,
      ),
    )
    // Stopped for good: even a later append that would find no rival is refused.
    expect(thrown(() => first.append('first', 3)).code).toBe('LOCKED')
    second.append('second', 'a')
    const theirs = readFileSync(`${path}.lock`, 'utf8')
    first.close()
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(theirs)
    second.append('second', 'b')
    second.close()
    expect(reopenedData(path)).toEqual([1, 'a', 'b'])
  })

  it('T42: a lock file that was removed (nobody replaced it) also stops the holder', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'write' })
    rmSync(`${path}.lock`)
    expect(thrown(() => session.append('x', 1)).message).toMatch(/the lock file ".*" was removed/)
    session.close()
    expect(reopenedData(path)).toEqual([])
  })

  it('T60: a session file renamed while held keeps its writer, and a writer of the new name is refused at its first write: no line is overwritten', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const first = openJsonlSession(path, { durability: 'write' })
    first.append('first', 1)
    renameSync(path, join(dir, 't.jsonl'))
    const other = simulatedProcess(createWorld())
    const second = openJsonlSessionWith(other.host, join(dir, 't.jsonl'), { durability: 'write' })
    // The file is where its writer left it, under another name: the writer goes on writing into it.
    first.append('first', 2)
    const error = thrown(() => second.append('second', 'a'))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toMatch(
      /no longer holds ".*t\.jsonl": ".*t\.jsonl" is \d+ bytes long, not the \d+ this session wrote: another writer has written to it, or cut it; nothing was written/,
    )
    expect(thrown(() => second.append('second', 'b')).code).toBe('LOCKED')
    first.close()
    second.close()
    expect(reopenedData(join(dir, 't.jsonl'))).toEqual([1, 2])
    expect(readdirSync(dir).sort()).toEqual(['t.jsonl'])
  })

  it('T42: close() never deletes a lock another process has taken over', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const world = createWorld()
    const holder = simulatedProcess(world)
    const session = openJsonlSessionWith(holder.host, path, { durability: 'write' })
    // The holder's lock is moved aside and replaced, as a takeover that judged it stale would.
    renameSync(`${path}.lock`, `${path}.lock.old`)
    writeFileSync(`${path}.lock`, '4242\nanother-holder\n')
    session.close()
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('4242\nanother-holder\n')
    expect(holder.host.heldFiles.size).toBe(0)
  })

  it('T42: a lock that is a symlink is never followed or removed', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    writeFileSync(join(dir, 'precious'), '1\nnot-a-lock\n')
    symlinkSync(join(dir, 'precious'), `${path}.lock`)
    const error = thrown(() => openJsonlSession(path))
    expect(error.code).toBe('IO')
    expect(readFileSync(join(dir, 'precious'), 'utf8')).toBe('1\nnot-a-lock\n')
    expect(readdirSync(dir).sort()).toEqual(['precious', 's.jsonl', 's.jsonl.lock'])
  })
})

describe('T42: a crash at any step leaves nothing that blocks the next writer', () => {
  const setups = {
    'creating the lock': (_path: string): void => {},
    "taking over a dead pid's lock": (path: string): void => writeFileSync(`${path}.lock`, '999999\nleft\n'),
  }
  for (const [label, setUp] of Object.entries(setups)) {
    it(`T42: ${label}: crashing before any of its file-system calls, then another process opens`, () => {
      const probe = simulatedProcess(createWorld())
      const probeDir = tempDir()
      setUp(join(probeDir, 's.jsonl'))
      openJsonlSessionWith(probe.host, join(probeDir, 's.jsonl')).close()
      const steps = probe.calls.length
      for (let k = 0; k <= steps; k += 1) {
        const dir = tempDir()
        const path = join(dir, 's.jsonl')
        setUp(path)
        const world = createWorld()
        const victim = simulatedProcess(world)
        victim.beforeCall = (call) => {
          if (call.index === k) victim.crash()
        }
        let held: JsonlSession | undefined
        try {
          held = openJsonlSessionWith(victim.host, path, { durability: 'write' })
          held.append('victim', 1)
          held.close()
        } catch (error) {
          // Whatever came out, the process is dead: it makes no more calls.
          expect(victim.crashed, `crash at ${k}: ${String(error)}`).toBe(true)
        }
        const next = simulatedProcess(world)
        const session = openJsonlSessionWith(next.host, path, { durability: 'write' })
        session.append('next', 2)
        session.close()
        const leftovers = readdirSync(dir).filter((name) => name !== 's.jsonl')
        // A crash can leave private temporary or moved-aside files, never a lock or gate.
        for (const name of leftovers) expect(name, `crash at ${k}`).toMatch(/\.(tmp|stale-[0-9a-f-]+)$/)
        const data = reopenedData(path)
        expect(data.at(-1), `crash at ${k}`).toBe(2)
        rmSync(dir, { recursive: true, force: true })
      }
    })
  }
})

describe('T42: half-written locks (file systems without hard links)', () => {
  const noLinks = (proc: SimulatedProcess): void => {
    proc.override = (call, run) => {
      if (call.name === 'link') throw systemError('EPERM', 'link')
      return run()
    }
  }

  /** A pauses after creating its (still empty) lock file, before writing its pid into it. */
  function pauseBeforeLockText(proc: SimulatedProcess, path: string, during: () => void): void {
    let lockFd: number | undefined
    let done = false
    proc.beforeCall = (call) => {
      if (call.name === 'fstat' && lockFd === undefined && proc.calls.at(-2)?.args[0] === `${path}.lock`) {
        lockFd = call.args[0] as number
      }
      if (!done && call.name === 'write' && call.args[0] === lockFd) {
        done = true
        during()
      }
    }
  }

  it('T42: a 100 ms pause between creating the lock and writing the pid does not let a second opener in', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const world = createWorld()
    const [a, b] = [simulatedProcess(world), simulatedProcess(world)]
    noLinks(a)
    noLinks(b)
    let paused = false
    class Suspend extends Error {}
    pauseBeforeLockText(a, path, () => {
      paused = true
      const start = world.clock
      // B waits while A is paused, but A's pause ends after 100 ms: then A runs on.
      b.onSleep = () => {
        if (world.clock - start > 100) throw new Suspend()
      }
      expect(() => openJsonlSessionWith(b.host, path)).toThrow(Suspend)
      b.onSleep = undefined
    })
    const first = openJsonlSessionWith(a.host, path, { durability: 'write' })
    expect(paused).toBe(true)
    const error = thrown(() => openJsonlSessionWith(b.host, path))
    expect(error.code).toBe('LOCKED')
    expect(error.details.pid).toBe(a.pid)
    first.append('a', 1)
    first.close()
    expect(reopenedData(path)).toEqual([1])
  })

  it('T42: a creator paused past the grace period loses to the opener that took over, and is refused', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    const world = createWorld()
    const [a, b] = [simulatedProcess(world), simulatedProcess(world)]
    noLinks(a)
    noLinks(b)
    let second: JsonlSession | undefined
    pauseBeforeLockText(a, path, () => {
      second = openJsonlSessionWith(b.host, path, { durability: 'write' })
      expect(world.clock).toBeGreaterThanOrEqual(HALF_WRITTEN_GRACE_MS)
    })
    const error = thrown(() => openJsonlSessionWith(a.host, path))
    expect(error.code).toBe('LOCKED')
    expect(error.details.pid).toBe(b.pid)
    second!.append('b', 1)
    second!.close()
    expect(reopenedData(path)).toEqual([1])
  })

  it('T42: the grace clock starts again for every new half-written file', () => {
    const dir = tempDir()
    const world = createWorld()
    const watch = createAbandonWatch(simulatedProcess(world).host)
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, '')
    const first = readLockFile(nodeSessionFs, lock)!
    expect(watch(first)).toBe(false)
    world.clock += HALF_WRITTEN_GRACE_MS - 100
    expect(watch(first)).toBe(false)
    // Replaced by another empty file (another creator): its age counts from now.
    rmSync(lock)
    const second = recreateWithAnotherInode(dir, lock, first.stat.ino)
    expect(second.stat.ino).not.toBe(first.stat.ino)
    world.clock += 200
    expect(watch(second)).toBe(false)
    world.clock += HALF_WRITTEN_GRACE_MS - 1
    expect(watch(second)).toBe(false)
    world.clock += 1
    expect(watch(second)).toBe(true)
  })

  it('T42: removing a stale file never removes another file that replaced it, even an equally empty one', () => {
    const dir = tempDir()
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, '')
    const judged = readLockFile(nodeSessionFs, lock)!
    rmSync(lock)
    const replacement = recreateWithAnotherInode(dir, lock, judged.stat.ino)
    removeIfUnchanged(nodeSessionFs, lock, judged, 'token')
    expect(readLockFile(nodeSessionFs, lock)?.stat.ino).toBe(replacement.stat.ino)
    removeIfUnchanged(nodeSessionFs, lock, replacement, 'token')
    expect(readLockFile(nodeSessionFs, lock)).toBeUndefined()
    expect(readdirSync(dir).filter((name) => !name.startsWith('hold-inode'))).toEqual([])
  })
})

describe('T42: hard links are refused by every process', () => {
  it('T42: another process refuses a file with two links, whichever link it opens', () => {
    const dir = tempDir()
    const path = join(dir, 's.jsonl')
    openJsonlSession(path).close()
    linkSync(path, join(dir, 'twin.jsonl'))
    const other = simulatedProcess(createWorld())
    for (const name of [path, join(dir, 'twin.jsonl')]) {
      expect(thrown(() => openJsonlSessionWith(other.host, name)).code).toBe('HARD_LINKED')
    }
    expect(readdirSync(dir).sort()).toEqual(['s.jsonl', 'twin.jsonl'])
  })
})
