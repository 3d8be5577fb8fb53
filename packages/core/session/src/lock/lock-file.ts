import { constants } from 'node:fs'
import { errorCode } from '../io-error.ts'
import { sameFile, writeFully, type FileStat, type SessionFs } from '../jsonl/session-fs.ts'

/**
 * A lock file's text: the holder's pid, its token, and the device:inode of the session file it
 * guards, one per line. Earlier versions wrote only the first two lines; they still parse.
 */
export function formatLock(pid: number, token: string, file: FileStat): string {
  return `${pid}\n${token}\n${file.dev}:${file.ino}\n`
}

export interface ParsedLock {
  readonly pid: number
  readonly token: string
  /** `dev:ino` of the guarded file, when the writer recorded it. */
  readonly file: string | undefined
}

/** The lock's fields, or `undefined` when the text is not a whole lock (empty, cut short, foreign). */
export function parseLock(text: string): ParsedLock | undefined {
  const match = /^([1-9][0-9]{0,9})\n([^\n]+)\n(?:([0-9]+:[0-9]+)\n)?/.exec(text)
  if (match === null) return undefined
  return { pid: Number(match[1]), token: match[2] as string, file: match[3] }
}

/** A lock file as read: its text and the identity of the file that held it. */
export interface LockSnapshot {
  readonly text: string
  readonly stat: FileStat
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const MAX_LOCK_BYTES = 4096

/**
 * Reads the lock file at `path` without following a symlink; `undefined` when there is none. A
 * symlink (ELOOP) is an error: a lock is never a link someone planted.
 */
export function readLockFile(fs: SessionFs, path: string): LockSnapshot | undefined {
  let fd: number
  try {
    fd = fs.open(path, constants.O_RDONLY | NOFOLLOW)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
  try {
    const stat = fs.fstat(fd)
    const buffer = new Uint8Array(Math.min(stat.size, MAX_LOCK_BYTES))
    let length = 0
    while (length < buffer.length) {
      const read = fs.read(fd, buffer, length, buffer.length - length, length)
      if (read <= 0) break
      length += read
    }
    return { text: Buffer.from(buffer.subarray(0, length)).toString('utf8'), stat }
  } finally {
    fs.close(fd)
  }
}

/** An exclusively created file: its descriptor (kept open, so its inode cannot be reused) and identity. */
export interface CreatedFile {
  readonly fd: number
  readonly stat: FileStat
}

// Errors meaning "this file system has no hard links": fall back to create-then-write.
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])

/**
 * Creates `path` exclusively with `text` already in it: the text is written to a private temporary
 * file that is then hard-linked to `path` (link fails if `path` exists), so no other process can ever
 * see the file empty or half-written. Where the file system has no hard links, falls back to O_EXCL
 * creation followed by the write, which readers must tolerate for a moment. `undefined` when `path`
 * already exists.
 */
export function createFileExclusively(
  fs: SessionFs,
  path: string,
  text: string,
  token: string,
): CreatedFile | undefined {
  const bytes = Buffer.from(text, 'utf8')
  const temporary = `${path}.${token}.tmp`
  const fd = fs.open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644)
  let linked = false
  try {
    writeFully(fs, fd, bytes, 0)
    try {
      fs.link(temporary, path)
      linked = true
    } catch (error) {
      const code = errorCode(error)
      if (code === 'EEXIST') return undefined
      if (code === undefined || !NO_HARD_LINKS.has(code)) throw error
    }
  } finally {
    if (!linked) closeQuietly(fs, fd)
    removeQuietly(fs, temporary)
  }
  if (linked) return { fd, stat: fs.fstat(fd) }
  return createWithoutLink(fs, path, bytes)
}

function createWithoutLink(fs: SessionFs, path: string, bytes: Uint8Array): CreatedFile | undefined {
  let fd: number
  try {
    fd = fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644)
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return undefined
    throw error
  }
  const stat = fs.fstat(fd)
  try {
    writeFully(fs, fd, bytes, 0)
  } catch (error) {
    // Still empty or half-written: remove it if it is still the file we made.
    const now = fs.lstat(path)
    if (now !== undefined && sameFile(now, stat)) removeQuietly(fs, path)
    closeQuietly(fs, fd)
    throw error
  }
  return { fd, stat }
}

export function closeQuietly(fs: SessionFs, fd: number): void {
  try {
    fs.close(fd)
  } catch {
    // Already failing or closing; nothing more to do with this descriptor.
  }
}

export function removeQuietly(fs: SessionFs, path: string): void {
  try {
    fs.unlink(path)
  } catch {
    // Gone already, or not ours to remove any more.
  }
}
