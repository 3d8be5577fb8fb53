import { SessionError } from '../errors.ts'
import {
  checkEvent,
  checkHeader,
  FORMAT_NAME,
  parseLine,
  WRITER_OPEN,
  type FileReader,
} from './jsonl-format.ts'
import { ioError } from '../io-error.ts'
import type { JsonlRepair, SessionEvent } from '../types.ts'
import type { SessionFs } from './session-fs.ts'

const NEWLINE = 0x0a

export interface LoadedSessionFile {
  /** False when the file holds no whole line (new, empty, or only a torn header): write a header. */
  readonly hasHeader: boolean
  readonly events: readonly SessionEvent[]
  /** File size after any repair: where the next line goes. */
  readonly size: number
  readonly repaired: JsonlRepair | undefined
}

/**
 * Reads a session file open for writing, cutting a torn tail (T31): bytes after the last newline
 * and trailing NUL bytes (what a crash mid-append or a power loss leaves) are truncated away. Any
 * other bad line throws `CORRUPT_LINE`, so nothing is ever dropped silently.
 */
export function loadSessionFile(options: {
  readonly fs: SessionFs
  readonly fd: number
  readonly path: string
  readonly fsync: boolean
  readonly where: string
}): LoadedSessionFile {
  const { fs, fd, path, where } = options
  const bytes = readWhole(fs, fd, path, where)
  const end = wholeLinesEnd(bytes)
  if (end === 0) refuseForeignTail(path, bytes, WRITER_OPEN)
  const { events } = parseWholeLines({ bytes, end, path, reader: WRITER_OPEN })
  // Repair only once every whole line is known good, so a corrupt file is left exactly as found.
  let repaired: JsonlRepair | undefined
  if (end < bytes.length) {
    try {
      fs.ftruncate(fd, end)
      if (options.fsync) fs.fsync(fd)
    } catch (error) {
      throw ioError(where, `cannot cut the torn tail of "${path}" back to ${end} bytes`, error)
    }
    repaired = { bytesCut: bytes.length - end, atOffset: end }
  }
  return { hasHeader: end > 0, events, size: end, repaired }
}

/**
 * Parses the whole lines `bytes[0, end)`: the header, then events whose seqs continue without a gap.
 * Throws `CORRUPT_LINE` or `UNSUPPORTED_FORMAT` naming `reader`.
 */
export function parseWholeLines(options: {
  readonly bytes: Uint8Array
  readonly end: number
  readonly path: string
  readonly reader: FileReader
}): { readonly header: unknown; readonly events: SessionEvent[] } {
  const { bytes, end, path, reader } = options
  const events: SessionEvent[] = []
  let header: unknown
  let line = 0
  for (let start = 0; start < end;) {
    const stop = bytes.indexOf(NEWLINE, start)
    line += 1
    const value = parseLine(path, line, bytes.subarray(start, stop), reader)
    if (line === 1) {
      checkHeader(path, value, reader)
      header = value
    } else events.push(checkEvent(path, line, value, events.length + 1, reader))
    start = stop + 1
  }
  return { header, events }
}

const HEADER_START = `{"format":"${FORMAT_NAME}"`

/**
 * A file without one whole line is cut to nothing and given a header, which is right for a torn
 * header but would wipe a file that was never a session: refuse anything not starting like a header.
 */
export function refuseForeignTail(path: string, bytes: Uint8Array, reader: FileReader): void {
  let stop = bytes.length
  while (stop > 0 && bytes[stop - 1] === 0) stop -= 1
  const start = Buffer.from(bytes.subarray(0, Math.min(stop, HEADER_START.length))).toString('latin1')
  if (HEADER_START.startsWith(start)) return
  throw new SessionError({
    code: 'UNSUPPORTED_FORMAT',
    message: `${reader.where}: "${path}" is not a ${FORMAT_NAME} file (it does not start with a header line); it was left untouched`,
    details: { path, line: 1 },
  })
}

/** End of the last newline-terminated line, ignoring trailing NUL bytes. */
export function wholeLinesEnd(bytes: Uint8Array): number {
  let end = bytes.length
  while (end > 0 && bytes[end - 1] === 0) end -= 1
  return end === 0 ? 0 : bytes.lastIndexOf(NEWLINE, end - 1) + 1
}

export function readWhole(fs: SessionFs, fd: number, path: string, where: string): Buffer {
  try {
    const size = fs.fstat(fd).size
    const buffer = Buffer.allocUnsafe(size)
    let offset = 0
    while (offset < size) {
      const read = fs.read(fd, buffer, offset, size - offset, offset)
      if (read === 0) break
      offset += read
    }
    return buffer.subarray(0, offset)
  } catch (error) {
    throw ioError(where, `cannot read "${path}"`, error)
  }
}
