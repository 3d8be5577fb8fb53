import { closeSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs'
import type { TimedCase } from '../harness/measure-case.ts'
import { recordJsonlStep } from './jsonl-step-file.ts'
import { createTempDir } from './temp-dir.ts'

/**
 * What a JSONL `'write'` step cannot avoid per call, whatever the library does: its two lines (the
 * call's `tool/call` and `tool/result`, taken from a file a real 100-call step wrote) written with
 * one bare `writeSync` each — `'write'` means each event is in the file when its append returns, so
 * two writes per call. The `checked` variant adds what T60 asks before every write: one `fstat` of
 * the lock file and one of the session file. No formatting, no recording: the floor a `'write'`
 * goal is measured against (`execute` + this floor ÷ `execute`).
 */
export async function jsonlWriteFloorCase(variant: 'bare' | 'checked'): Promise<TimedCase<number>> {
  const dir = createTempDir('floor')
  const [callLine, resultLine] = await stepLines(dir.file('step.jsonl'))
  let fd = -1
  let lockFd = -1
  let round = 0
  const bare = (): number => writeSync(fd, callLine) + writeSync(fd, resultLine)
  const checked = (): number => {
    fstatSync(lockFd)
    fstatSync(fd)
    const first = writeSync(fd, callLine)
    fstatSync(lockFd)
    fstatSync(fd)
    return first + writeSync(fd, resultLine)
  }
  return {
    id: `floor.jsonl.write${variant === 'bare' ? '' : '.checked'}`,
    label:
      variant === 'bare'
        ? "a 'write' step's two lines per call, two bare writeSync (no check, no formatting)"
        : "a 'write' step's two lines per call, two writeSync each after T60's two fstat",
    callsPerOp: 1,
    beforeRound: () => {
      round++
      fd = openSync(dir.file(`round-${round}.jsonl`), 'a')
      lockFd = openSync(dir.file(`round-${round}.lock`), 'a')
    },
    afterRound: () => {
      closeSync(fd)
      closeSync(lockFd)
    },
    dispose: () => dir.remove(),
    op: variant === 'bare' ? bare : checked,
    verify: (written) => {
      const expected = Buffer.byteLength(callLine) + Buffer.byteLength(resultLine)
      if (written !== expected) throw new Error(`floor: wrote ${written} bytes, expected ${expected}`)
    },
  }
}

/** The first `tool/call` and `tool/result` lines a real 100-call `'write'` step wrote, newline included. */
async function stepLines(path: string): Promise<[string, string]> {
  await recordJsonlStep(path)
  const lines = readFileSync(path, 'utf8').split('\n')
  const call = lines.find((line) => line.includes('"type":"tool/call"'))
  const result = lines.find((line) => line.includes('"type":"tool/result"'))
  if (call === undefined || result === undefined) throw new Error(`floor: no tool lines in ${path}`)
  return [`${call}\n`, `${result}\n`]
}
