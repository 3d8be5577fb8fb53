import { readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createMemorySession,
  openJsonlSession,
  readJsonlSession,
  type JsonlSession,
} from '@deepseek-ai/dsh-session'
import { openJsonlSessionWith } from '../src/jsonl/open-jsonl-session.ts'
import {
  createWorld,
  simulatedProcess,
  systemError,
  type SimulatedProcess,
} from './support/simulated-host.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { thrown } from './support/thrown.ts'

const tempDir = useTempDirs('dsh-session-')

/** The `data` of every whole event line in the file (the header and a torn tail left out). */
function fileData(path: string): unknown[] {
  return readJsonlSession(path).events.map((event) => event.data)
}

function watched(durability: 'step' | 'step-fsync' | 'write'): {
  proc: SimulatedProcess
  session: JsonlSession
  path: string
  callsSince: () => string[]
} {
  const proc = simulatedProcess(createWorld())
  const path = join(tempDir(), 's.jsonl')
  const session = openJsonlSessionWith(proc.host, path, { durability })
  let from = proc.calls.length
  return {
    proc,
    session,
    path,
    callsSince: () => {
      const names = proc.calls.slice(from).map((call) => call.name)
      from = proc.calls.length
      return names
    },
  }
}

describe("T59: durability 'step' writes at commit points", () => {
  it("T59: appends touch no file; commit() writes them in one write after the two checks, and 'step-fsync' fsyncs it once", () => {
    for (const durability of ['step', 'step-fsync'] as const) {
      const { session, path, callsSince } = watched(durability)
      callsSince()
      for (let i = 1; i <= 5; i++) session.append('e', i)
      expect(callsSince()).toEqual([])
      expect(session.uncommitted).toBe(5)
      expect(fileData(path)).toEqual([])
      session.commit()
      expect(callsSince()).toEqual(
        durability === 'step' ? ['fstat', 'fstat', 'write'] : ['fstat', 'fstat', 'write', 'fsync'],
      )
      expect(session.uncommitted).toBe(0)
      expect(fileData(path)).toEqual([1, 2, 3, 4, 5])
      session.commit()
      expect(callsSince()).toEqual([])
      session.close()
    }
  })

  it('T59: reads show every appended event, committed or not; a reader of the file sees the committed ones', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'step' })
    session.append('e', 1)
    session.commit()
    session.append('e', 2)
    expect(session.events().map((event) => event.data)).toEqual([1, 2])
    expect(session.lastSeq).toBe(2)
    expect(fileData(path)).toEqual([1])
    session.close()
  })

  it('T59: close() commits what is held; nothing but commit() and close() writes', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'step' })
    session.append('e', 1)
    session.append('e', 2)
    expect(fileData(path)).toEqual([])
    session.close()
    expect(fileData(path)).toEqual([1, 2])
    const again = openJsonlSession(path, { durability: 'step' })
    expect(again.lastSeq).toBe(2)
    expect(again.append('e', 3).seq).toBe(3)
    again.close()
    expect(fileData(path)).toEqual([1, 2, 3])
  })

  it('T59: a commit that cannot write is cut back, names the events it lost, and stops the session; the file keeps the last commit', () => {
    const { proc, session, path } = watched('step')
    session.append('e', 1)
    session.commit()
    const committed = statSync(path).size
    session.append('e', 2)
    session.append('e', 3)
    proc.override = (call, run) => {
      if (call.name !== 'write') return run()
      const [fd, buffer, offset, , position] = call.args as [number, Uint8Array, number, number, number]
      writeSync(fd, buffer, offset, 7, position) // a short write, then the disk is full
      throw systemError('ENOSPC', 'write')
    }
    const error = thrown(() => session.commit())
    proc.override = undefined
    expect([error.code, error.message]).toEqual([
      'IO',
      expect.stringMatching(
        /^commit\(\): cannot write to ".*"; events 2–3 are in this session's memory and not in the file: no more appends, reopen it/,
      ),
    ])
    expect(statSync(path).size).toBe(committed)
    expect(thrown(() => session.append('e', 4)).code).toBe('IO')
    session.close()
    expect(fileData(path)).toEqual([1])
  })

  it('T59: a commit after the lock was lost writes nothing, and no later commit does', () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'step' })
    session.append('e', 1)
    session.commit()
    session.append('e', 2)
    rmSync(`${path}.lock`)
    const error = thrown(() => session.commit())
    expect([error.code, error.message]).toEqual([
      'LOCKED',
      expect.stringMatching(/^commit\(\): this session no longer holds/),
    ])
    expect(thrown(() => session.append('e', 3)).code).toBe('LOCKED')
    session.close() // the failure was reported by the commit that met it
    expect(session.closed).toBe(true)
    expect(fileData(path)).toEqual([1])
  })

  it("T59: commit() of a memory session and of a JSONL session with 'write' returns at once and writes nothing", () => {
    const memory = createMemorySession()
    memory.append('e', 1)
    expect(memory.commit?.()).toBeUndefined()
    const { session, callsSince } = watched('write')
    session.append('e', 1)
    callsSince()
    session.commit()
    expect(callsSince()).toEqual([])
    expect(session.uncommitted).toBe(0)
    session.close()
  })

  it('T59: the line format is the same as one write per event', () => {
    const dir = tempDir()
    const clock = () => new Date(0)
    const each = openJsonlSession(join(dir, 'each.jsonl'), { durability: 'write', clock })
    const step = openJsonlSession(join(dir, 'step.jsonl'), { durability: 'step', clock })
    for (const session of [each, step]) {
      session.append('a', { x: [1, 'two'] })
      session.append('b', null, { sourceEventSeqs: [1] })
      session.close()
    }
    expect(readFileSync(join(dir, 'step.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'each.jsonl'), 'utf8'))
  })
})
