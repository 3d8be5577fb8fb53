import { constants, fstatSync } from 'node:fs'
import { resolve } from 'node:path'
import { SessionError } from '../errors.ts'
import { ioError } from '../io-error.ts'
import { closeQuietly } from '../lock/lock-file.ts'
import type { JsonlSessionContents } from '../types.ts'
import { describeBadPath } from './describe-bad-path.ts'
import { READ_ONLY } from './jsonl-format.ts'
import { parseWholeLines, readWhole, refuseForeignTail, wholeLinesEnd } from './load-session-file.ts'
import { nodeSessionFs } from './session-fs.ts'

const WHERE = READ_ONLY.where

/**
 * Reads a JSONL session file without opening it as a session: no lock is taken or checked, nothing
 * is created, written, repaired or truncated, so it works while a writer holds the file (a viewer
 * of a live run) and never stands in a writer's way. What it returns is the file's whole lines at
 * the moment of the read.
 *
 * Bytes after the last whole line are an append in progress (or a torn tail the writer's next open
 * will cut, T31): they are not events yet, and are reported in `unreadTail` rather than read. Any
 * other malformed line throws `CORRUPT_LINE`; a file that is not a session file, or a newer format
 * version, throws `UNSUPPORTED_FORMAT`; a missing file, a directory or anything that is not a
 * regular file (a FIFO, a device) throws `IO`.
 *
 * @example
 * const { events } = readJsonlSession('./run.jsonl')
 * console.log(events.filter((event) => event.type === 'tool/call').length)
 */
export function readJsonlSession(path: string): JsonlSessionContents {
  const pathProblem = describeBadPath(path)
  if (pathProblem !== undefined) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${WHERE}: path must be a non-empty file path, got ${pathProblem}`,
    })
  }
  const absolute = resolve(path)
  const fs = nodeSessionFs
  let fd: number
  try {
    // Non-blocking, so that a FIFO cannot hang the open; it is refused just below.
    fd = fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw ioError(WHERE, `cannot open "${absolute}"`, error)
  }
  let bytes: Buffer
  try {
    let regular: boolean
    try {
      regular = fstatSync(fd).isFile()
    } catch (error) {
      throw ioError(WHERE, `cannot inspect "${absolute}"`, error)
    }
    if (!regular) {
      throw new SessionError({
        code: 'IO',
        message: `${WHERE}: "${absolute}" is not a regular file`,
        details: { path: absolute },
      })
    }
    bytes = readWhole(fs, fd, absolute, WHERE)
  } finally {
    closeQuietly(fs, fd)
  }
  const end = wholeLinesEnd(bytes)
  if (end === 0) refuseForeignTail(absolute, bytes, READ_ONLY)
  const { header, events } = parseWholeLines({ bytes, end, path: absolute, reader: READ_ONLY })
  const createdAt = (header as { createdAt?: unknown } | undefined)?.createdAt
  return Object.freeze({
    path: absolute,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
    events: Object.freeze(events),
    unreadTail: end < bytes.length ? Object.freeze({ bytes: bytes.length - end, atOffset: end }) : undefined,
  })
}
