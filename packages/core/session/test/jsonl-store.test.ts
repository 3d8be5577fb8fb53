import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openJsonlSession, type SessionLogger } from '@deepseek-ai/dsh-session'
import { steppingClock } from './support/session-contract.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

function recordingLogger(): SessionLogger & { entries: { message: string; fields: unknown }[] } {
  const entries: { message: string; fields: unknown }[] = []
  return { entries, warn: (message, fields) => void entries.push({ message, fields }) }
}

/** A session file with `count` events, closed again. */
function seededFile(count: number): string {
  const path = join(tempDir(), 'log.jsonl')
  const session = openJsonlSession(path, { clock: steppingClock(), durability: 'write' })
  for (let i = 1; i <= count; i += 1) session.append('test/event', { i })
  session.close()
  return path
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n')

describe('jsonl file format', () => {
  it('writes a header line, then one JSON event per line', () => {
    const path = join(tempDir(), 'a.jsonl')
    const session = openJsonlSession(path, { clock: () => new Date(0) })
    expect(session.path).toBe(path)
    expect(session.repaired).toBeUndefined()
    session.append('tool/call', { text: 'line\nbreak \u2028' })
    session.append('other', [1], { surfaceOp: 'remove', sourceEventSeqs: [1] })
    session.close()
    const [header, first, second, rest] = lines(path)
    expect(JSON.parse(header!)).toEqual({
      format: 'dsh-session',
      version: 1,
      createdAt: '1970-01-01T00:00:00.000Z',
    })
    expect(JSON.parse(first!)).toEqual({
      seq: 1,
      type: 'tool/call',
      time: '1970-01-01T00:00:00.000Z',
      data: { text: 'line\nbreak \u2028' },
    })
    expect(second).toBe(
      '{"seq":2,"type":"other","time":"1970-01-01T00:00:00.000Z","surfaceOp":"remove","sourceEventSeqs":[1],"data":[1]}',
    )
    expect(rest).toBe('')
  })

  it('resolves a relative path and reopening continues the seq numbering', () => {
    const dir = tempDir()
    const cwd = process.cwd()
    try {
      process.chdir(dir)
      const session = openJsonlSession('rel.jsonl')
      expect(session.path).toBe(join(dir, 'rel.jsonl'))
      session.append('a', 1)
      session.close()
    } finally {
      process.chdir(cwd)
    }
    const again = openJsonlSession(join(dir, 'rel.jsonl'))
    expect(again.lastSeq).toBe(1)
    expect(again.append('b', 2).seq).toBe(2)
    again.close()
  })

  it('keeps unknown event types and unknown extra fields exactly as written', () => {
    const path = seededFile(1)
    const foreign =
      '{"seq":2,"type":"future/kind","time":"t","data":{"__proto__":{"x":1}},"annotations":{"by":"v1.5"},"surfaceOp":"append"}'
    appendFileSync(path, `${foreign}\n`)
    const session = openJsonlSession(path)
    const event = session.events()[1]!
    expect(JSON.stringify(event)).toBe(foreign)
    expect((event as unknown as { annotations: unknown }).annotations).toEqual({ by: 'v1.5' })
    expect(Object.isFrozen((event as unknown as { annotations: object }).annotations)).toBe(true)
    session.append('next', 3)
    session.close()
    expect(lines(path)[2]).toBe(foreign)
    expect(JSON.parse(lines(path)[3]!)).toMatchObject({ seq: 3, type: 'next' })
  })

  it('a header with a higher major version throws UNSUPPORTED_FORMAT naming both versions', () => {
    const path = join(tempDir(), 'v2.jsonl')
    const content = '{"format":"dsh-session","version":2}\n{"seq":1,"type":"a","time":"t","data":1}\nto'
    writeFileSync(path, content)
    const error = thrown(() => openJsonlSession(path))
    expect(error.code).toBe('UNSUPPORTED_FORMAT')
    expect(error.message).toMatch(/format version 2; this build reads version 1/)
    expect(error.details).toMatchObject({ foundVersion: 2, supportedVersion: 1 })
    expect(readFileSync(path, 'utf8')).toBe(content)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  it('refuses files that are not session logs and leaves them untouched', () => {
    const dir = tempDir()
    const noNewline = join(dir, 'notes.txt')
    writeFileSync(noNewline, 'precious text without a newline')
    expect(thrown(() => openJsonlSession(noNewline)).code).toBe('UNSUPPORTED_FORMAT')
    expect(readFileSync(noNewline, 'utf8')).toBe('precious text without a newline')
    const otherJson = join(dir, 'other.jsonl')
    writeFileSync(otherJson, '{"format":"other"}\n')
    expect(thrown(() => openJsonlSession(otherJson)).message).toMatch(/is not a dsh-session file/)
  })
})

describe('T31: repair on reopen', () => {
  it('T31: a torn last line is cut back to the last whole event, reported and logged', () => {
    const path = seededFile(3)
    const whole = statSync(path).size
    const torn = '{"seq":4,"type":"test/event","ti'
    appendFileSync(path, torn)
    const logger = recordingLogger()
    const session = openJsonlSession(path, { logger })
    expect(session.repaired).toEqual({ bytesCut: torn.length, atOffset: whole })
    expect(statSync(path).size).toBe(whole)
    expect(session.events().map((event) => event.seq)).toEqual([1, 2, 3])
    expect(logger.entries).toHaveLength(1)
    expect(logger.entries[0]!.message).toMatch(`cut a torn tail of ${torn.length} bytes at offset ${whole}`)
    expect(logger.entries[0]!.fields).toEqual({ path, bytesCut: torn.length, atOffset: whole })
    expect(session.append('after', 1).seq).toBe(4)
    session.close()
    const reopened = openJsonlSession(path)
    expect(reopened.repaired).toBeUndefined()
    expect(reopened.events().map((event) => event.type)).toEqual([
      'test/event',
      'test/event',
      'test/event',
      'after',
    ])
    reopened.close()
  })

  it('T31: a logger that throws does not undo or hide the repair', () => {
    const path = seededFile(1)
    appendFileSync(path, '{"seq":2')
    const session = openJsonlSession(path, {
      logger: {
        warn: () => {
          throw new Error('logger down')
        },
      },
    })
    expect(session.repaired?.bytesCut).toBe(8)
    expect(session.append('next', 1).seq).toBe(2)
    session.close()
  })

  it('T31: a complete final line missing its newline was never acknowledged and is cut too', () => {
    const path = seededFile(1)
    appendFileSync(path, '{"seq":2,"type":"a","time":"t","data":1}')
    const session = openJsonlSession(path)
    expect(session.lastSeq).toBe(1)
    expect(session.repaired?.bytesCut).toBe(40)
    session.close()
  })

  it('T31: trailing NUL bytes (a power-loss tail) are cut, with or without a torn line before them', () => {
    const path = seededFile(2)
    const whole = statSync(path).size
    appendFileSync(path, Buffer.alloc(4096))
    const first = openJsonlSession(path)
    expect(first.repaired).toEqual({ bytesCut: 4096, atOffset: whole })
    first.close()
    appendFileSync(path, Buffer.concat([Buffer.from('{"seq":3,'), Buffer.alloc(100)]))
    const second = openJsonlSession(path)
    expect(second.repaired).toEqual({ bytesCut: 109, atOffset: whole })
    expect(second.lastSeq).toBe(2)
    second.close()
  })

  it('T31: a torn header leaves a fresh, usable file', () => {
    const path = join(tempDir(), 'torn-header.jsonl')
    writeFileSync(path, '{"format":"dsh-se')
    const session = openJsonlSession(path)
    expect(session.repaired).toEqual({ bytesCut: 17, atOffset: 0 })
    session.append('a', 1)
    session.close()
    expect(JSON.parse(lines(path)[0]!)).toMatchObject({ format: 'dsh-session', version: 1 })
    expect(openJsonlSession(path).lastSeq).toBe(1)
  })

  it('T31: a malformed line that is not the tail throws CORRUPT_LINE with its line number and drops nothing', () => {
    const path = seededFile(3)
    const original = readFileSync(path, 'utf8').split('\n')
    original[2] = original[2]!.slice(0, 10) // line 3 (seq 2) damaged mid-file
    const damaged = `${original.join('\n')}{"seq":4,"torn`
    writeFileSync(path, damaged)
    const error = thrown(() => openJsonlSession(path))
    expect(error.code).toBe('CORRUPT_LINE')
    expect(error.details.line).toBe(3)
    expect(error.message).toMatch(/line 3 of ".*log\.jsonl" is not valid JSON/)
    // Nothing was cut, not even the torn tail, and the lock was released.
    expect(readFileSync(path, 'utf8')).toBe(damaged)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  it('blank lines, seq gaps, bad fields and invalid UTF-8 in the middle are CORRUPT_LINE too', () => {
    const header = '{"format":"dsh-session","version":1}\n'
    const event = (seq: number, extra = ''): string =>
      `{"seq":${seq},"type":"a","time":"t","data":null${extra}}\n`
    const cases: [string | Buffer, number, RegExp][] = [
      [`${header}${event(1)}\n${event(2)}`, 3, /is empty/],
      [`${header}${event(1)}${event(3)}`, 3, /has seq 3 where 2 was expected/],
      [`${header}${event(1, ',"surfaceOp":"insert"')}`, 2, /surfaceOp that must be one of/],
      [`${header}${event(1)}${event(2, ',"sourceEventSeqs":[2]')}`, 3, /not an earlier event than seq 2/],
      [`${header}{"seq":1,"type":"a","time":"t"}\n`, 2, /has no data/],
      [`${header}[1]\n`, 2, /must be an event object/],
      [
        Buffer.concat([
          Buffer.from(`${header}{"seq":1,"type":"\xff`, 'latin1'),
          Buffer.from('","time":"t","data":1}\n'),
        ]),
        2,
        /not valid UTF-8/,
      ],
      [`${header}${Buffer.alloc(3).toString()}\n${event(1)}`, 2, /not valid JSON/],
    ]
    for (const [content, line, message] of cases) {
      const path = join(tempDir(), 'bad.jsonl')
      writeFileSync(path, content)
      const error = thrown(() => openJsonlSession(path))
      expect(error.code).toBe('CORRUPT_LINE')
      expect(error.details.line).toBe(line)
      expect(error.message).toMatch(message)
    }
  })
})

describe('single writer lock', () => {
  it('a second open of a held file throws LOCKED naming the pid; close releases the lock', () => {
    const path = join(tempDir(), 'locked.jsonl')
    const first = openJsonlSession(path)
    expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid))
    const error = thrown(() => openJsonlSession(path))
    expect(error.code).toBe('LOCKED')
    expect(error.details.pid).toBe(process.pid)
    expect(error.message).toMatch(new RegExp(`locked by process ${process.pid} \\(this process`))
    first.close()
    expect(existsSync(`${path}.lock`)).toBe(false)
    const second = openJsonlSession(path)
    second.close()
  })

  it('a lock held by another live process throws LOCKED', async () => {
    const path = join(tempDir(), 'other.jsonl')
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    try {
      await new Promise((resolve) => child.once('spawn', resolve))
      writeFileSync(`${path}.lock`, `${child.pid}\nsome-token\n`)
      const error = thrown(() => openJsonlSession(path))
      expect(error.code).toBe('LOCKED')
      expect(error.details.pid).toBe(child.pid)
      // The file is opened (created if missing) to learn its identity before the lock; nothing is written.
      expect(readFileSync(path, 'utf8')).toBe('')
    } finally {
      child.kill('SIGKILL')
      await new Promise((resolve) => child.once('exit', resolve))
    }
  })

  it('a stale lock (dead pid, or empty after a crash) is taken over', () => {
    const path = seededFile(1)
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    writeFileSync(`${path}.lock`, `${dead}\ntoken\n`)
    const session = openJsonlSession(path)
    expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid))
    session.close()
    writeFileSync(`${path}.lock`, '')
    const afterEmpty = openJsonlSession(path)
    expect(afterEmpty.lastSeq).toBe(1)
    afterEmpty.close()
    expect(existsSync(`${path}.lock`)).toBe(false)
  })
})

describe('openJsonlSession arguments and I/O', () => {
  it('validates path and options with messages that name them', () => {
    const dir = tempDir()
    const cases: [() => unknown, RegExp][] = [
      [() => openJsonlSession(''), /path must be a non-empty file path, got an empty string/],
      [
        () => openJsonlSession(3 as unknown as string),
        /path must be a non-empty file path, got the number 3/,
      ],
      [() => openJsonlSession('a\0b'), /containing NUL/],
      [
        () => openJsonlSession(join(dir, 'x'), { durability: 'sync' as never }),
        /options\.durability must be one of "fsync", "write", "step", "step-fsync", got the string "sync"/,
      ],
      [
        () => openJsonlSession(join(dir, 'x'), { logger: {} as never }),
        /options\.logger must be an object with a warn/,
      ],
      [
        () => openJsonlSession(join(dir, 'x'), { clock: 'now' as never }),
        /options\.clock must be a function/,
      ],
      [() => openJsonlSession(join(dir, 'x'), { durable: true } as never), /unknown key "durable"/],
      [() => openJsonlSession(join(dir, 'x'), [] as never), /options must be a plain object/],
    ]
    for (const [fn, message] of cases) {
      const error = thrown(fn)
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toMatch(/^openJsonlSession\(path, options\): /)
      expect(error.message).toMatch(message)
    }
    expect(existsSync(join(dir, 'x'))).toBe(false)
  })

  it('a directory or a missing parent directory is an IO error that releases the lock', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'sub'))
    const error = thrown(() => openJsonlSession(join(dir, 'sub')))
    expect(error.code).toBe('IO')
    expect(error.kind).toBe('system')
    expect(existsSync(join(dir, 'sub.lock'))).toBe(false)
    expect(thrown(() => openJsonlSession(join(dir, 'missing', 'x.jsonl'))).code).toBe('IO')
  })

  it('events read back from the file are deep-frozen', () => {
    const path = seededFile(2)
    const session = openJsonlSession(path)
    const [event] = session.events()
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen(event!.data)).toBe(true)
    session.close()
  })
})
