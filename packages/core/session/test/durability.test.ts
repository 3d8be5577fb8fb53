import { appendFileSync, readFileSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionError, openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import { openJsonlSessionWith } from '../src/jsonl/open-jsonl-session.ts'
import {
  createWorld,
  simulatedProcess,
  systemError,
  type FsCall,
  type SimulatedProcess,
} from './support/simulated-host.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

/** A session over a file-system whose calls the test can watch and fail. */
function watchedSession(durability: 'fsync' | 'write'): {
  proc: SimulatedProcess
  session: JsonlSession
  path: string
  dataFd: number
} {
  const proc = simulatedProcess(createWorld())
  const path = join(tempDir(), 's.jsonl')
  const session = openJsonlSessionWith(proc.host, path, { durability })
  const opened = proc.calls.find((call) => call.name === 'open' && call.args[0] === path)
  expect(opened).toBeDefined()
  // The data file is the first file opened; its descriptor is the one every append writes to.
  const dataFd = proc.calls.find((call) => call.name === 'fstat' && call.index > opened!.index)!
    .args[0] as number
  return { proc, session, path, dataFd }
}

const onData = (dataFd: number) => (call: FsCall) => call.args[0] === dataFd

/** The data lines of the file as parsed events (the header excluded), and whether it ends in a torn line. */
function fileEvents(path: string): { data: unknown[]; torn: boolean } {
  const text = readFileSync(path, 'utf8')
  const lines = text.split('\n')
  const torn = lines.at(-1) !== ''
  return {
    data: lines.slice(1, torn ? -1 : -1).map((line) => (JSON.parse(line) as { data: unknown }).data),
    torn,
  }
}

describe("T31: durability 'fsync' really fsyncs", () => {
  it("T31: every append with 'fsync' writes its whole line, then fsyncs the file, before it returns", () => {
    const { proc, session, dataFd } = watchedSession('fsync')
    for (let i = 1; i <= 3; i += 1) {
      const start = proc.calls.length
      session.append('e', { i })
      const during = proc.calls.slice(start).filter(onData(dataFd))
      const writes = during.filter((call) => call.name === 'write')
      const fsyncs = during.filter((call) => call.name === 'fsync')
      expect(writes.length).toBeGreaterThanOrEqual(1)
      expect(fsyncs).toHaveLength(1)
      // The fsync comes after the last write of the line.
      expect(fsyncs[0]!.index).toBeGreaterThan(writes.at(-1)!.index)
    }
    session.close()
  })

  it("T31: a new file's header is fsynced and so is its directory, with 'fsync' only", () => {
    const { proc, session, path, dataFd } = watchedSession('fsync')
    const directoryOpen = proc.calls.find((call) => call.name === 'open' && call.args[0] === join(path, '..'))
    expect(directoryOpen).toBeDefined()
    const fsynced = proc.calls.filter((call) => call.name === 'fsync').map((call) => call.args[0])
    expect(fsynced).toContain(dataFd)
    expect(fsynced.length).toBeGreaterThanOrEqual(2)
    session.close()
    const plain = watchedSession('write')
    plain.session.append('e', 1)
    expect(plain.proc.calls.filter((call) => call.name === 'fsync')).toEqual([])
    plain.session.close()
  })
})

describe("T31: durability 'fsync' covers the torn-tail repair", () => {
  /** A session file holding one event and then a torn line, as a crash mid-append leaves it. */
  function tornFile(): string {
    const path = join(tempDir(), 's.jsonl')
    const first = openJsonlSession(path, { durability: 'write' })
    first.append('e', 1)
    first.close()
    appendFileSync(path, '{"seq":2,"type":"e","ti')
    return path
  }

  /** The file-system calls an open of `path` made on the data file's descriptor. */
  function openWatched(path: string, durability: 'fsync' | 'write'): FsCall[] {
    const proc = simulatedProcess(createWorld())
    const session = openJsonlSessionWith(proc.host, path, { durability })
    expect(session.repaired).toEqual({ bytesCut: 23, atOffset: expect.any(Number) })
    expect(session.events().map((event) => event.data)).toEqual([1])
    session.close()
    const opened = proc.calls.find((call) => call.name === 'open' && call.args[0] === path)!
    const dataFd = proc.calls.find((call) => call.name === 'fstat' && call.index > opened.index)!.args[0]
    return proc.calls.filter((call) => call.args[0] === dataFd && call.index > opened.index)
  }

  it("T31: with 'fsync' the cut of a torn tail is fsynced before the open returns; with 'write' it is not", () => {
    const synced = openWatched(tornFile(), 'fsync')
    const cut = synced.findIndex((call) => call.name === 'ftruncate')
    expect(cut).toBeGreaterThanOrEqual(0)
    expect(synced.slice(cut + 1).some((call) => call.name === 'fsync')).toBe(true)
    const written = openWatched(tornFile(), 'write')
    expect(written.some((call) => call.name === 'ftruncate')).toBe(true)
    expect(written.some((call) => call.name === 'fsync')).toBe(false)
  })
})

describe('T31: failed writes and fsyncs', () => {
  for (const code of ['ENOSPC', 'EIO', 'EDQUOT']) {
    it(`T31: a write that fails part-way (${code}) is cut back to the last whole event; the session carries on`, () => {
      const { proc, session, path, dataFd } = watchedSession('write')
      session.append('e', { i: 1 })
      const before = readFileSync(path)
      let writes = 0
      proc.override = (call, run) => {
        if (call.name !== 'write' || call.args[0] !== dataFd) return run()
        writes += 1
        if (writes > 1) throw systemError(code, 'write')
        // Only part of the line gets written before the disk is full.
        const [fd, buffer, offset, length, position] = call.args as [
          number,
          Uint8Array,
          number,
          number,
          number,
        ]
        return writeSync(fd, buffer, offset, Math.floor(length / 2), position)
      }
      const error = thrown(() => session.append('e', { i: 2, pad: 'x'.repeat(100) }))
      expect(error.code).toBe('IO')
      expect(error.message).toMatch(new RegExp(`cannot write to ".*"; nothing was appended: ${code}`))
      expect(errorCause(error)).toBe(code)
      expect(writes).toBe(2)
      // The half line was written, then cut off again.
      expect(readFileSync(path)).toEqual(before)
      expect(session.lastSeq).toBe(1)
      proc.override = undefined
      expect(session.append('e', { i: 3 }).seq).toBe(2)
      session.close()
      const reopened = openJsonlSession(path)
      expect(reopened.repaired).toBeUndefined()
      expect(reopened.events().map((event) => event.data)).toEqual([{ i: 1 }, { i: 3 }])
      reopened.close()
    })
  }

  it('T31: a write that makes no progress is an IO error, not an endless loop', () => {
    const { proc, session, path, dataFd } = watchedSession('write')
    proc.override = (call, run) => (call.name === 'write' && call.args[0] === dataFd ? 0 : run())
    const error = thrown(() => session.append('e', 1))
    expect(error.code).toBe('IO')
    expect(error.message).toMatch(/write made no progress/)
    proc.override = undefined
    expect(session.append('e', 2).seq).toBe(1)
    session.close()
    expect(fileEvents(path)).toEqual({ data: [2], torn: false })
  })

  it('T31: a failed fsync (EIO) fails that append, cuts its line back and stops the session; reads and close still work', () => {
    const { proc, session, path, dataFd } = watchedSession('fsync')
    session.append('e', 1)
    proc.override = (call, run) => {
      if (call.name === 'fsync' && call.args[0] === dataFd) throw systemError('EIO', 'fsync')
      return run()
    }
    const error = thrown(() => session.append('e', 2))
    expect(error.code).toBe('IO')
    expect(error.message).toMatch(/cannot fsync ".*"; the event was not appended/)
    proc.override = undefined
    // The in-memory log and the file agree: the event whose fsync failed is in neither.
    expect(session.events().map((event) => event.data)).toEqual([1])
    expect(fileEvents(path)).toEqual({ data: [1], torn: false })
    const later = thrown(() => session.append('e', 3))
    expect(later.code).toBe('IO')
    expect(later.message).toMatch(
      /unusable after an earlier failed write or fsync; nothing was appended, reopen it: EIO/,
    )
    expect(session.read({ afterSeq: 0 })).toHaveLength(1)
    session.close()
    expect(statSync(`${path}.lock`, { throwIfNoEntry: false })).toBeUndefined()
    const reopened = openJsonlSession(path)
    expect(reopened.events().map((event) => event.data)).toEqual([1])
    expect(reopened.append('e', 4).seq).toBe(2)
    reopened.close()
  })

  it('T31: when the cut-back fails too, the torn line stays, appends stop, and reopening repairs it', () => {
    const { proc, session, path, dataFd } = watchedSession('write')
    session.append('e', 1)
    const whole = statSync(path).size
    let wrote = false
    proc.override = (call, run) => {
      if (call.args[0] !== dataFd) return run()
      if (call.name === 'ftruncate') throw systemError('EIO', 'ftruncate')
      if (call.name === 'write') {
        if (wrote) throw systemError('ENOSPC', 'write')
        wrote = true
        const [fd, buffer, offset, , position] = call.args as [number, Uint8Array, number, number, number]
        return writeSync(fd, buffer, offset, 10, position)
      }
      return run()
    }
    const error = thrown(() => session.append('e', 2))
    expect(error.message).toMatch(
      /cannot write to ".*", nor cut the partial line back; no more appends, reopen it/,
    )
    proc.override = undefined
    expect(thrown(() => session.append('e', 3)).code).toBe('IO')
    expect(session.lastSeq).toBe(1)
    session.close()
    expect(statSync(path).size).toBe(whole + 10)
    const reopened = openJsonlSession(path)
    expect(reopened.repaired).toEqual({ bytesCut: 10, atOffset: whole })
    expect(reopened.events().map((event) => event.data)).toEqual([1])
    reopened.close()
  })

  it('T31: a header that cannot be written (disk full) fails the open with IO and still releases the lock', () => {
    const proc = simulatedProcess(createWorld())
    const path = join(tempDir(), 's.jsonl')
    // The disk fills up once the lock is in place: the header, and the gate file that releasing
    // the lock would use, cannot be written.
    proc.override = (call, run) => {
      const locked = proc.calls.some((c) => c.name === 'link' && c.args[1] === `${path}.lock`)
      if (call.name === 'write' && locked) throw systemError('ENOSPC', 'write')
      return run()
    }
    const error = thrown(() => openJsonlSessionWith(proc.host, path))
    expect(error.code).toBe('IO')
    expect(error.message).toMatch(/cannot write the header/)
    proc.override = undefined
    expect(proc.host.heldFiles.size).toBe(0)
    expect(statSync(`${path}.lock`, { throwIfNoEntry: false })).toBeUndefined()
    const session = openJsonlSessionWith(proc.host, path)
    expect(session.append('e', 1).seq).toBe(1)
    session.close()
  })

  it('T31: whatever writes and fsyncs fail, the log in memory always equals the whole lines of the file', () => {
    type Step = { readonly fail: 'none' | 'partial' | 'nospace' | 'fsync'; readonly size: number }
    const step = fc.record({
      fail: fc.constantFrom('none', 'none', 'partial', 'nospace', 'fsync') as fc.Arbitrary<Step['fail']>,
      size: fc.nat(300),
    })
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), fc.boolean(), (steps, sync) => {
        const { proc, session, path, dataFd } = watchedSession(sync ? 'fsync' : 'write')
        let stopped = false
        for (const [i, { fail, size }] of steps.entries()) {
          let wrote = false
          proc.override = (call, run) => {
            if (call.args[0] !== dataFd) return run()
            if (call.name === 'write' && fail === 'partial' && !wrote) {
              wrote = true
              const [fd, buffer, offset, length, position] = call.args as [
                number,
                Uint8Array,
                number,
                number,
                number,
              ]
              return writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 3)), position)
            }
            if (call.name === 'write' && (fail === 'nospace' || (fail === 'partial' && wrote))) {
              throw systemError('ENOSPC', 'write')
            }
            if (call.name === 'fsync' && fail === 'fsync') throw systemError('EIO', 'fsync')
            return run()
          }
          const data = { i, pad: 'p'.repeat(size) }
          const acknowledged = (() => {
            try {
              session.append('e', data)
              return true
            } catch (error) {
              if (!SessionError.isInstance(error) || error.code !== 'IO') throw error
              return false
            }
          })()
          const failed = fail === 'partial' || fail === 'nospace' || (fail === 'fsync' && sync)
          expect(acknowledged).toBe(!failed && !stopped)
          if (fail === 'fsync' && sync) stopped = true
          proc.override = undefined
          expect(fileEvents(path)).toEqual({ data: session.events().map((event) => event.data), torn: false })
        }
        session.close()
      }),
      { numRuns: 60 },
    )
  })
})

function errorCause(error: SessionError): unknown {
  const cause = (error as { cause?: unknown }).cause
  return typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined
}
