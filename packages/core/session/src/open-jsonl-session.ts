import { closeSync, constants, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { createSessionCore } from './create-session-core.ts'
import { createEventClock } from './event-clock.ts'
import { SessionError } from './errors.ts'
import { errorCode, ioError } from './io-error.ts'
import { formatEventLine, formatHeaderLine } from './jsonl-format.ts'
import { loadSessionFile } from './load-session-file.ts'
import { readClockOption, readStoreOptions } from './read-store-options.ts'
import { acquireSessionLock, type SessionLock } from './session-lock.ts'
import type {
  JsonlDurability,
  JsonlSession,
  JsonlSessionOptions,
  SessionEvent,
  SessionLogger,
} from './types.ts'

/**
 * Opens (or creates) an append-only JSONL session file: a header line
 * `{"format":"dsh-session","version":1,"createdAt":…}`, then one event per line.
 *
 * Durability (T31): with `durability: 'fsync'` (default) every append is written and fsynced before
 * it returns, and the directory is fsynced when the file is created; with `'write'` it is only
 * written to the kernel, which survives a crash or SIGKILL of the process but not a power loss.
 *
 * On open, a torn tail (bytes after the last newline, trailing NULs) is truncated away, reported in
 * `repaired` and through `logger.warn`; any other malformed line throws `CORRUPT_LINE`; a newer format
 * version throws `UNSUPPORTED_FORMAT`. Seq numbering continues after the last event. One writer at a
 * time: `<path>.lock` holds the owner's pid; a live owner makes this throw `LOCKED`, a dead one's lock
 * is taken over. `close()` releases the lock.
 *
 * @example
 * const session = openJsonlSession('./run.jsonl', { durability: 'write' })
 * session.append('note', { text: 'hi' })
 * session.close()
 */
export function openJsonlSession(path: string, options?: JsonlSessionOptions): JsonlSession {
  const where = 'openJsonlSession(path, options)'
  const pathProblem = describeBadPath(path)
  if (pathProblem !== undefined) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: path must be a non-empty file path, got ${pathProblem}`,
    })
  }
  const read = readStoreOptions(where, options, ['durability', 'clock', 'logger'])
  const durability = readDurability(where, read.durability)
  const clock = createEventClock(readClockOption(where, read.clock))
  const logger = readLogger(where, read.logger)
  const absolute = resolve(path)
  const fsync = durability === 'fsync'
  const lock = acquireSessionLock(absolute, where)
  let fd: number | undefined
  try {
    fd = openFile(absolute, where)
    const loaded = loadSessionFile({ fd, path: absolute, fsync, where })
    let size = loaded.size
    if (!loaded.hasHeader) {
      size = writeHeader({ fd, path: absolute, fsync, where, createdAt: clock(() => where) })
    }
    if (loaded.repaired !== undefined) {
      const { bytesCut, atOffset } = loaded.repaired
      warn(
        logger,
        `openJsonlSession: cut a torn tail of ${bytesCut} bytes at offset ${atOffset} from "${absolute}"`,
        {
          path: absolute,
          bytesCut,
          atOffset,
        },
      )
    }
    const writer = createLineWriter({ fd, path: absolute, fsync, size, lock })
    return createSessionCore(
      { clock, initialEvents: loaded.events, persist: writer.persist, release: writer.release },
      { path: absolute, repaired: loaded.repaired },
    )
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd)
    try {
      lock.release()
    } catch {
      // The open already failed; that failure is the one to report.
    }
    throw error
  }
}

function describeBadPath(path: unknown): string | undefined {
  if (typeof path !== 'string') return describeValue(path)
  if (path.length === 0) return 'an empty string'
  if (path.includes('\0')) return 'a string containing NUL'
  return undefined
}

function readDurability(where: string, value: unknown): JsonlDurability {
  if (value === undefined) return 'fsync'
  if (value === 'fsync' || value === 'write') return value
  throw new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${where}: options.durability must be "fsync" or "write", got ${describeValue(value)}`,
  })
}

function readLogger(where: string, value: unknown): SessionLogger | undefined {
  if (value === undefined) return undefined
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { warn?: unknown }).warn === 'function'
  ) {
    return value as SessionLogger
  }
  throw new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${where}: options.logger must be an object with a warn(message, fields) method, got ${describeValue(value)}`,
  })
}

function warn(
  logger: SessionLogger | undefined,
  message: string,
  fields: Readonly<Record<string, unknown>>,
): void {
  try {
    logger?.warn(message, fields)
  } catch {
    // A logger must not throw; if it does, the repair it reports has still happened.
  }
}

/** Read-write without O_APPEND: lines are written at a tracked offset so a failed write can be cut back. */
function openFile(path: string, where: string): number {
  try {
    return openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644)
  } catch (error) {
    throw ioError(where, `cannot open "${path}"`, error)
  }
}

function writeHeader(options: {
  fd: number
  path: string
  fsync: boolean
  where: string
  createdAt: string
}): number {
  const bytes = Buffer.from(formatHeaderLine(options.createdAt), 'utf8')
  try {
    writeFully(options.fd, bytes, 0)
    if (options.fsync) {
      fsyncSync(options.fd)
      syncDirectory(dirname(options.path))
    }
  } catch (error) {
    throw ioError(options.where, `cannot write the header of "${options.path}"`, error)
  }
  return bytes.length
}

/** Makes a new file's directory entry durable. Some platforms cannot open directories: best effort there. */
function syncDirectory(directory: string): void {
  let fd: number
  try {
    fd = openSync(directory, 'r')
  } catch {
    return
  }
  try {
    fsyncSync(fd)
  } catch (error) {
    const code = errorCode(error)
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'ENOTSUP') throw error
  } finally {
    closeQuietly(fd)
  }
}

function createLineWriter(options: {
  fd: number
  path: string
  fsync: boolean
  size: number
  lock: SessionLock
}): { persist: (event: SessionEvent) => void; release: () => void } {
  const { fd, path, fsync, lock } = options
  let size = options.size
  // Set when the file may end in bytes we could not cut, or fsync failed (its pages may be lost).
  let unusable: unknown

  const rollBack = (): void => {
    try {
      ftruncateSync(fd, size)
    } catch (error) {
      unusable ??= error
    }
  }

  const persist = (event: SessionEvent): void => {
    const where = `append(${JSON.stringify(event.type)}, data)`
    if (unusable !== undefined) {
      throw ioError(where, `"${path}" is unusable after an earlier write failure; reopen it`, unusable)
    }
    const bytes = Buffer.from(formatEventLine(event), 'utf8')
    try {
      writeFully(fd, bytes, size)
    } catch (error) {
      rollBack()
      throw ioError(where, `cannot write to "${path}"`, error)
    }
    if (fsync) {
      try {
        fsyncSync(fd)
      } catch (error) {
        unusable = error
        rollBack()
        throw ioError(where, `cannot fsync "${path}"`, error)
      }
    }
    size += bytes.length
  }

  const release = (): void => {
    let failure: unknown
    try {
      closeSync(fd)
    } catch (error) {
      failure = error
    }
    try {
      lock.release()
    } catch (error) {
      failure ??= error
    }
    if (failure === undefined) return
    throw SessionError.isInstance(failure) ? failure : ioError('close()', `cannot close "${path}"`, failure)
  }

  return { persist, release }
}

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  for (let offset = 0; offset < bytes.length;) {
    offset += writeSync(fd, bytes, offset, bytes.length - offset, position + offset)
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already failing or closing; nothing more to do with this descriptor.
  }
}
