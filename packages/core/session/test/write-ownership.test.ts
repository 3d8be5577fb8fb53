import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { openJsonlSessionWith } from '../src/jsonl/open-jsonl-session.ts'
import { createWorld, simulatedProcess, type SimulatedProcess } from './support/simulated-host.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

function reopenedData(path: string): unknown[] {
  const session = openJsonlSession(path)
  const data = session.events().map((event) => event.data)
  session.close()
  return data
}

/** A session of a simulated process, and the names of the file-system calls it makes from now on. */
function watched(
  path: string,
  durability: 'write' | 'fsync' | 'step' | 'step-fsync',
): { proc: SimulatedProcess; session: JsonlSession; callsSince: () => string[] } {
  const proc = simulatedProcess(createWorld())
  const session = openJsonlSessionWith(proc.host, path, { durability })
  let from = proc.calls.length
  return {
    proc,
    session,
    callsSince: () => {
      const names = proc.calls.slice(from).map((call) => call.name)
      from = proc.calls.length
      return names
    },
  }
}

describe('T60: before every write, the writer checks the file is still its own, on its descriptors', () => {
  it("T60: an append with 'write' makes two fstat calls and its write, and no path lookup; with 'fsync' one fsync more", () => {
    const dir = tempDir()
    const write = watched(join(dir, 'w.jsonl'), 'write')
    write.callsSince()
    write.session.append('e', 1)
    write.session.append('e', 2)
    expect(write.callsSince()).toEqual(['fstat', 'fstat', 'write', 'fstat', 'fstat', 'write'])
    const fsync = watched(join(dir, 'f.jsonl'), 'fsync')
    fsync.callsSince()
    fsync.session.append('e', 1)
    expect(fsync.callsSince()).toEqual(['fstat', 'fstat', 'write', 'fsync'])
    write.session.close()
    fsync.session.close()
  })

  it('T60: a removed lock stops its writer at its next write, whether or not anyone took the file', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'write' })
    session.append('x', 1)
    rmSync(`${path}.lock`)
    const error = thrown(() => session.append('x', 2))
    expect([error.code, error.message]).toEqual([
      'LOCKED',
      expect.stringMatching(
        /no longer holds ".*s\.jsonl": the lock file ".*s\.jsonl\.lock" was removed; nothing was written/,
      ),
    ])
    session.close()
    expect(reopenedData(path)).toEqual([1])
  })

  it('T60: a session file deleted, or replaced by a rename over it, stops its writer at its next write', () => {
    const dir = tempDir()
    const deleted = join(dir, 'deleted.jsonl')
    const a = openJsonlSession(deleted, { durability: 'write' })
    a.append('x', 1)
    rmSync(deleted)
    expect(thrown(() => a.append('x', 2)).message).toMatch(/".*deleted\.jsonl" was deleted or replaced/)
    a.close()
    const replaced = join(dir, 'replaced.jsonl')
    const b = openJsonlSession(replaced, { durability: 'write' })
    b.append('x', 1)
    writeFileSync(join(dir, 'other'), 'not a session\n')
    renameSync(join(dir, 'other'), replaced)
    expect(thrown(() => b.append('x', 2)).message).toMatch(/".*replaced\.jsonl" was deleted or replaced/)
    b.close()
    expect(readFileSync(replaced, 'utf8')).toBe('not a session\n')
  })

  it('T60: bytes another program appended stop the writer before it writes over or after them', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'write' })
    session.append('x', 1)
    const before = readFileSync(path, 'utf8')
    appendFileSync(path, '{"seq":2,"type":"foreign"')
    const error = thrown(() => session.append('x', 2))
    expect(error.code).toBe('LOCKED')
    expect(error.message).toMatch(/another writer has written to it, or cut it/)
    expect(readFileSync(path, 'utf8')).toBe(`${before}{"seq":2,"type":"foreign"`)
    session.close()
  })

  it('T60: a lock moved aside by hand and taken by a second writer: whichever writes second is refused, in either order', () => {
    for (const firstWriter of ['old', 'new'] as const) {
      const dir = tempDir()
      const path = join(dir, 's.jsonl')
      const old = openJsonlSession(path, { durability: 'write' })
      old.append('old', 1)
      renameSync(`${path}.lock`, `${path}.lock.moved`)
      const other = simulatedProcess(createWorld())
      const taker = openJsonlSessionWith(other.host, path, { durability: 'write' })
      const [winner, loser] = firstWriter === 'old' ? [old, taker] : [taker, old]
      winner.append(firstWriter, 2)
      expect(thrown(() => loser.append('loser', 3)).message).toMatch(/another writer has written to it/)
      winner.append(firstWriter, 3)
      taker.close()
      old.close()
      rmSync(`${path}.lock.moved`)
      expect(reopenedData(path)).toEqual([1, 2, 3])
    }
  })
})
