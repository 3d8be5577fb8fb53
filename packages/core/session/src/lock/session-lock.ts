import { SessionError } from '../errors.ts'
import { errorCode, ioError } from '../io-error.ts'
import { sameFile, type FileStat } from '../jsonl/session-fs.ts'
import type { LockHost } from './lock-host.ts'
import {
  closeQuietly,
  createFileExclusively,
  formatLock,
  parseLock,
  readLockFile,
  type LockSnapshot,
} from './lock-file.ts'
import { withLockGate } from './lock-gate.ts'
import { createAbandonWatch, HALF_WRITTEN_GRACE_MS, removeIfUnchanged } from './stale-files.ts'

/** The single-writer lock of one session file, held until `release`. */
export interface HeldLock {
  readonly lockPath: string
  /**
   * Why this holder no longer holds the lock (removed, or replaced by another writer's), or
   * `undefined` while it does. One `lstat`: the lock file's descriptor stays open, so its inode
   * number cannot be reused by another file while it is held.
   */
  lost(): string | undefined
  /**
   * The same question asked of the lock's descriptor, for the check before every write (T60): one
   * `fstat`, no path lookup. A lock file that was removed, or replaced by a rename over it, has no
   * link left; then the answer is `lost()`'s. A lock moved aside by hand still has its link and is
   * not noticed here: the data file's length check catches the writer that took over when it writes.
   */
  stillHeld(): string | undefined
  /** Removes the lock file if it is still this holder's, and closes it. Idempotent. */
  release(): void
}

const MAX_ROUNDS = 64
const POLL_MS = 10

/**
 * Takes `<data file's real path>.lock`. The lock holds this process's pid, a token used by no other
 * holder, and the device:inode of the data file, and is created atomically with that text in it
 * (see `createFileExclusively`), then read back: only a lock that still has this holder's inode and
 * text counts as taken.
 *
 * A lock whose pid is alive (this process included) throws `LOCKED`. A stale one (dead pid, or left
 * half-written by a crash) is removed under the lock's gate, and only if it is still exactly the file
 * that was judged stale; then creation is tried again, so of several processes taking over at once
 * exactly one creates the new lock and the others meet it and get `LOCKED`.
 */
export function acquireSessionLock(host: LockHost, options: LockRequest): HeldLock {
  try {
    return takeLock(host, options)
  } catch (error) {
    // Only file-system errors are wrapped; anything else is a bug and passes through.
    if (SessionError.isInstance(error) || errorCode(error) === undefined) throw error
    const { lockPath, where } = options
    if (errorCode(error) === 'ELOOP') {
      throw ioError(
        where,
        `the lock "${lockPath}" is a symbolic link, which no writer creates; delete it`,
        error,
      )
    }
    throw ioError(where, `cannot take the lock "${lockPath}"`, error)
  }
}

export interface LockRequest {
  readonly lockPath: string
  /** The data file: its device:inode goes into the lock. */
  readonly file: FileStat
  /** The path the caller gave, for messages. */
  readonly filePath: string
  readonly where: string
}

function takeLock(host: LockHost, options: LockRequest): HeldLock {
  const { fs } = host
  const { lockPath, file, filePath, where } = options
  const token = host.token()
  const text = formatLock(host.pid, token, file)
  const abandoned = createAbandonWatch(host)
  const waitUntil = host.now() + 4 * HALF_WRITTEN_GRACE_MS
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const created = createFileExclusively(fs, lockPath, text, token)
    if (created !== undefined) {
      const seen = readLockFile(fs, lockPath)
      if (seen !== undefined && sameFile(seen.stat, created.stat) && seen.text === text) {
        return heldLock(host, lockPath, created.fd, created.stat)
      }
      // Only a half-written lock can be judged abandoned, so this happens only without hard links.
      closeQuietly(fs, created.fd)
      continue
    }
    const seen = readLockFile(fs, lockPath)
    if (seen === undefined) continue // released meanwhile: create again
    const holder = parseLock(seen.text)
    if (holder !== undefined && host.isAlive(holder.pid)) {
      throw lockedBy(holder.pid, holder.file, { host, file, filePath, lockPath, where })
    }
    if (holder === undefined && !abandoned(seen)) {
      // Being written by its creator (only possible without hard links): give it a moment. Waiting
      // is bounded by time, not rounds; a file that keeps changing means its creators are alive.
      if (host.now() > waitUntil) {
        throw new SessionError({
          code: 'LOCKED',
          message: `${where}: the lock "${lockPath}" keeps being rewritten by other processes; try again`,
          details: { path: filePath },
        })
      }
      host.sleep(POLL_MS)
      round -= 1
      continue
    }
    withLockGate(host, lockPath, where, () => removeStale(host, lockPath, seen, token))
  }
  throw new SessionError({
    code: 'LOCKED',
    message: `${where}: could not take the lock "${lockPath}" after ${MAX_ROUNDS} rounds; other processes keep racing for it`,
    details: { path: filePath },
  })
}

/** Inside the gate: removes the lock only if it is still the stale file that was judged. */
function removeStale(host: LockHost, lockPath: string, judged: LockSnapshot, token: string): void {
  const current = readLockFile(host.fs, lockPath)
  if (current === undefined || !sameFile(current.stat, judged.stat) || current.text !== judged.text) return
  removeIfUnchanged(host.fs, lockPath, judged, token)
}

function heldLock(host: LockHost, lockPath: string, fd: number, stat: FileStat): HeldLock {
  const { fs } = host
  let released = false
  const lost = (): string | undefined => {
    const now = fs.lstat(lockPath)
    if (now === undefined) return `the lock file "${lockPath}" was removed`
    if (sameFile(now, stat)) return undefined
    let holder: string
    try {
      const pid = parseLock(readLockFile(fs, lockPath)?.text ?? '')?.pid
      holder = pid === undefined ? 'another writer' : `process ${pid}`
    } catch {
      holder = 'another writer'
    }
    return `the lock file "${lockPath}" now belongs to ${holder}`
  }
  const release = (): void => {
    if (released) return
    released = true
    const removeIfOurs = (): void => {
      if (lost() === undefined) fs.unlink(lockPath)
    }
    let entered = false
    try {
      // In the gate, nobody else can remove or replace the lock between the check and the unlink.
      withLockGate(host, lockPath, 'close()', () => {
        entered = true
        removeIfOurs()
      })
    } catch (error) {
      if (entered) throw error
      // No gate (it stayed busy, or the disk is too full to create it): releasing must still work,
      // and still removes the lock only if it is ours.
      removeIfOurs()
    } finally {
      closeQuietly(fs, fd)
    }
  }
  const stillHeld = (): string | undefined =>
    fs.fstat(fd).nlink > 0 ? undefined : (lost() ?? `the lock file "${lockPath}" was removed`)
  return { lockPath, lost, stillHeld, release }
}

function lockedBy(
  pid: number,
  guarded: string | undefined,
  context: { host: LockHost; file: FileStat; filePath: string; lockPath: string; where: string },
): SessionError {
  const { host, file, filePath, lockPath, where } = context
  const self = pid === host.pid ? ' (this process: close the other session first)' : ''
  const other =
    guarded !== undefined && guarded !== `${file.dev}:${file.ino}`
      ? ` for an earlier file at this path (device:inode ${guarded})`
      : ''
  return new SessionError({
    code: 'LOCKED',
    message: `${where}: "${filePath}" is locked by process ${pid}${self}${other}; if no process uses it, delete "${lockPath}"`,
    details: { path: filePath, pid },
  })
}
