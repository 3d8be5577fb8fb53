import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, readJsonlSession } from '@deepseek-ai/dsh-session'
import { startChildSession } from './support/child-session.ts'
import { steppingClock } from './support/session-contract.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

/** A session file with `count` events, closed again. */
function seededFile(count: number): string {
  const path = join(tempDir(), 'log.jsonl')
  const session = openJsonlSession(path, { clock: steppingClock(), durability: 'write' })
  for (let i = 1; i <= count; i += 1)
    session.append('test/event', { i }, i > 1 ? { sourceEventSeqs: [1] } : {})
  session.close()
  return path
}

describe('readJsonlSession: reading a session file without opening it as a session', () => {
  it('T28: returns every event as written, frozen, with the header time and the absolute path', () => {
    const path = seededFile(3)
    const read = readJsonlSession(path)
    expect(read.path).toBe(path)
    expect(read.createdAt).toBe('2024-01-01T00:00:00.000Z')
    expect(read.unreadTail).toBeUndefined()
    expect(read.events.map((event) => [event.seq, event.type, event.data])).toEqual([
      [1, 'test/event', { i: 1 }],
      [2, 'test/event', { i: 2 }],
      [3, 'test/event', { i: 3 }],
    ])
    expect(read.events[1]!.sourceEventSeqs).toEqual([1])
    expect(Object.isFrozen(read.events)).toBe(true)
    expect(Object.isFrozen(read.events[0]!.data)).toBe(true)
    const again = openJsonlSession(path, { durability: 'write' })
    expect(read.events).toEqual(again.events())
    again.close()
  })

  it('T42: takes no lock while a writer holds the file, and the writer keeps appending', () => {
    const path = join(tempDir(), 'live.jsonl')
    const writer = openJsonlSession(path, { clock: steppingClock(), durability: 'write' })
    writer.append('test/event', { i: 1 })
    const lock = `${path}.lock`
    const lockBefore = { text: readFileSync(lock, 'utf8'), ino: statSync(lock).ino }
    const bytesBefore = readFileSync(path)

    expect(readJsonlSession(path).events.map((event) => event.seq)).toEqual([1])
    // a second writer in this process is refused; the reader was not
    expect(thrown(() => openJsonlSession(path)).code).toBe('LOCKED')

    expect({ text: readFileSync(lock, 'utf8'), ino: statSync(lock).ino }).toEqual(lockBefore)
    expect(readFileSync(path).equals(bytesBefore)).toBe(true)
    expect(writer.append('test/event', { i: 2 }).seq).toBe(2)
    expect(readJsonlSession(path).events.map((event) => event.seq)).toEqual([1, 2])
    writer.close()
    expect(existsSync(lock)).toBe(false)
  })

  it('T42: reads a file another live process holds and appends to', async () => {
    const dir = tempDir()
    const path = join(dir, 'child.jsonl')
    const child = startChildSession(path, { cwd: dir, appends: 2 })
    try {
      const outcome = await child.result
      expect(outcome.outcome).toBe('opened')
      expect(thrown(() => openJsonlSession(path)).code).toBe('LOCKED')
      const read = readJsonlSession(path)
      expect(read.events.map((event) => [event.seq, event.data])).toEqual([
        [1, { pid: outcome.pid, i: 0 }],
        [2, { pid: outcome.pid, i: 1 }],
      ])
    } finally {
      await child.finish()
    }
  })

  it('T31: a torn last line is left in the file and reported as unread, never cut', () => {
    const path = seededFile(2)
    const whole = statSync(path).size
    const torn = '{"seq":3,"type":"test/event","ti'
    appendFileSync(path, torn)
    const read = readJsonlSession(path)
    expect(read.events.map((event) => event.seq)).toEqual([1, 2])
    expect(read.unreadTail).toEqual({ bytes: torn.length, atOffset: whole })
    expect(statSync(path).size).toBe(whole + torn.length)
  })

  it('a corrupt line throws CORRUPT_LINE naming the reader and the line, and the file is unchanged', () => {
    const path = seededFile(1)
    appendFileSync(path, 'not json\n')
    const before = readFileSync(path)
    const error = thrown(() => readJsonlSession(path))
    expect(error.code).toBe('CORRUPT_LINE')
    expect(error.details.line).toBe(3)
    expect(error.message).toMatch(/^readJsonlSession\(path\): line 3 of ".*" is not valid JSON/)
    expect(error.message).toMatch(/reading never modifies the file$/)
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  it('a file that is not a session, or a newer version, is UNSUPPORTED_FORMAT', () => {
    const dir = tempDir()
    const foreign = join(dir, 'foreign.txt')
    writeFileSync(foreign, 'hello')
    const error = thrown(() => readJsonlSession(foreign))
    expect(error.code).toBe('UNSUPPORTED_FORMAT')
    expect(error.message).toMatch(/^readJsonlSession\(path\): ".*foreign.txt" is not a dsh-session file/)
    expect(readFileSync(foreign, 'utf8')).toBe('hello')
    const newer = join(dir, 'newer.jsonl')
    writeFileSync(newer, '{"format":"dsh-session","version":2,"createdAt":"x"}\n')
    expect(thrown(() => readJsonlSession(newer)).details).toMatchObject({
      foundVersion: 2,
      supportedVersion: 1,
    })
  })

  it('an empty file, or one holding only a torn header, has no events', () => {
    const dir = tempDir()
    const empty = join(dir, 'empty.jsonl')
    writeFileSync(empty, '')
    expect(readJsonlSession(empty)).toMatchObject({ events: [], createdAt: undefined, unreadTail: undefined })
    const torn = join(dir, 'torn.jsonl')
    writeFileSync(torn, '{"format":"dsh-se')
    expect(readJsonlSession(torn)).toMatchObject({ events: [], unreadTail: { bytes: 17, atOffset: 0 } })
  })

  it('a missing file is IO and is not created; a directory and a FIFO are IO too', () => {
    const dir = tempDir()
    const missing = join(dir, 'missing.jsonl')
    const error = thrown(() => readJsonlSession(missing))
    expect(error.code).toBe('IO')
    expect(error.message).toMatch(/^readJsonlSession\(path\): cannot open ".*missing.jsonl": ENOENT/)
    expect(existsSync(missing)).toBe(false)
    const sub = join(dir, 'sub')
    mkdirSync(sub)
    expect(thrown(() => readJsonlSession(sub)).message).toMatch(/is not a regular file/)
    const fifo = join(dir, 'fifo')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    expect(thrown(() => readJsonlSession(fifo)).message).toMatch(/is not a regular file/)
  })

  it('follows a symlink to the session file, like any reader', () => {
    const path = seededFile(1)
    const link = join(tempDir(), 'link.jsonl')
    symlinkSync(path, link)
    expect(readJsonlSession(link).events).toHaveLength(1)
  })

  it('a bad path is INVALID_ARGUMENT', () => {
    for (const bad of ['', 'a\0b', 42, undefined]) {
      const error = thrown(() => readJsonlSession(bad as string))
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toMatch(/^readJsonlSession\(path\): path must be a non-empty file path, got /)
    }
  })
})
