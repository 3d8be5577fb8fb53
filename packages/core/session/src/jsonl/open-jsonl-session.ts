import { constants } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { createSessionCore } from '../create-session-core.ts'
import { describeBadPath } from './describe-bad-path.ts'
import { SessionError } from '../errors.ts'
import { createEventClock } from '../event-clock.ts'
import { errorCode, ioError } from '../io-error.ts'
import { closeQuietly } from '../lock/lock-file.ts'
import { defaultLockHost, type LockHost } from '../lock/lock-host.ts'
import { acquireSessionLock, type HeldLock } from '../lock/session-lock.ts'
import { readClockOption, readStoreOptions } from '../read-store-options.ts'
import type { JsonlDurability, JsonlSession, JsonlSessionOptions, SessionLogger } from '../types.ts'
import { formatHeaderLine } from './jsonl-format.ts'
import { createLineWriter } from './line-writer.ts'
import { loadSessionFile } from './load-session-file.ts'
import { openDataFile } from './open-data-file.ts'
import { writeFully, type SessionFs } from './session-fs.ts'

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
 * version throws `UNSUPPORTED_FORMAT`. Seq numbering continues after the last event.
 *
 * One writer per file, whatever name opens it (T42): the lock `<real path>.lock` is taken for the
 * file's real path, this process refuses a second open of the same device:inode under any name, and
 * a file with several hard links is refused (`HARD_LINKED`). A live holder makes this throw
 * `LOCKED`; a dead one's lock is taken over. Before every append the session checks that it still
 * holds the lock. `close()` releases the lock.
 *
 * @example
 * const session = openJsonlSession('./run.jsonl', { durability: 'write' })
 * session.append('note', { text: 'hi' })
 * session.close()
 */
export function openJsonlSession(path: string, options?: JsonlSessionOptions): JsonlSession {
  return openJsonlSessionWith(defaultLockHost(), path, options)
}

/** `openJsonlSession` over an explicit host: tests use it to inject file-system calls, pids and pauses. */
export function openJsonlSessionWith(
  host: LockHost,
  path: string,
  options?: JsonlSessionOptions,
): JsonlSession {
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
  // The header and a torn-tail cut are fsynced with either fsyncing durability.
  const fsync = durability === 'fsync' || durability === 'step-fsync'
  const { fs } = host
  const file = openDataFile(host, absolute, where)
  const key = `${file.stat.dev}:${file.stat.ino}`
  // Registered before locking, so that an open of the same file by this process under any other
  // name, even one started while this one waits, is refused.
  host.heldFiles.set(key, absolute)
  let lock: HeldLock | undefined
  try {
    lock = acquireSessionLock(host, {
      lockPath: `${file.realPath}.lock`,
      file: file.stat,
      filePath: absolute,
      where,
    })
    const loaded = loadSessionFile({ fs, fd: file.fd, path: absolute, fsync, where })
    let size = loaded.size
    if (!loaded.hasHeader) {
      size = writeHeader({ fs, fd: file.fd, path: absolute, fsync, where, createdAt: clock(() => where) })
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
    const writer = createLineWriter({
      fs,
      fd: file.fd,
      path: absolute,
      realPath: file.realPath,
      durability,
      size,
      lock,
    })
    const release = (): void => {
      try {
        writer.release()
      } finally {
        host.heldFiles.delete(key)
      }
    }
    return createSessionCore(
      { clock, initialEvents: loaded.events, persist: writer.persist, commit: writer.commit, release },
      {
        path: absolute,
        repaired: loaded.repaired,
        get uncommitted(): number {
          return writer.uncommitted()
        },
      },
    ) as JsonlSession
  } catch (error) {
    closeQuietly(fs, file.fd)
    host.heldFiles.delete(key)
    try {
      lock?.release()
    } catch {
      // The open already failed; that failure is the one to report.
    }
    throw error
  }
}

const DURABILITIES: readonly JsonlDurability[] = ['fsync', 'write', 'step', 'step-fsync']

function readDurability(where: string, value: unknown): JsonlDurability {
  if (value === undefined) return 'fsync'
  if ((DURABILITIES as readonly unknown[]).includes(value)) return value as JsonlDurability
  throw new SessionError({
    code: 'INVALID_ARGUMENT',
    message: `${where}: options.durability must be one of ${DURABILITIES.map((d) => JSON.stringify(d)).join(', ')}, got ${describeValue(value)}`,
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

function writeHeader(options: {
  fs: SessionFs
  fd: number
  path: string
  fsync: boolean
  where: string
  createdAt: string
}): number {
  const { fs, fd } = options
  const bytes = Buffer.from(formatHeaderLine(options.createdAt), 'utf8')
  try {
    writeFully(fs, fd, bytes, 0)
    if (options.fsync) {
      fs.fsync(fd)
      syncDirectory(fs, dirname(options.path))
    }
  } catch (error) {
    throw ioError(options.where, `cannot write the header of "${options.path}"`, error)
  }
  return bytes.length
}

/** Makes a new file's directory entry durable. Some platforms cannot open directories: best effort there. */
function syncDirectory(fs: SessionFs, directory: string): void {
  let fd: number
  try {
    fd = fs.open(directory, constants.O_RDONLY)
  } catch {
    return
  }
  try {
    fs.fsync(fd)
  } catch (error) {
    const code = errorCode(error)
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'ENOTSUP') throw error
  } finally {
    closeQuietly(fs, fd)
  }
}
