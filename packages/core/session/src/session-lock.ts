import { randomUUID } from 'node:crypto'
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { SessionError } from './errors.ts'
import { errorCode, ioError } from './io-error.ts'

/** Holds `<file>.lock` for one writer; `release` is idempotent. */
export interface SessionLock {
  readonly lockPath: string
  release(): void
}

const MAX_ATTEMPTS = 8
/** How long a lock file may stay empty before it counts as left by a crash mid-creation. */
const EMPTY_LOCK_GRACE_MS = 200

/**
 * Takes the single-writer lock of a session file: `<file>.lock`, created exclusively (O_EXCL) and
 * holding the owner's pid and a random token. A lock whose pid is alive (including this process)
 * throws `LOCKED`; a lock whose pid is dead — the writer was killed — is taken over.
 *
 * Takeover moves the stale file aside with an atomic rename and checks that what it moved is the
 * stale lock it judged, so two processes taking over at once cannot both win.
 */
export function acquireSessionLock(filePath: string, where: string): SessionLock {
  const lockPath = `${filePath}.lock`
  const content = `${process.pid}\n${randomUUID()}\n`
  let emptySince: number | undefined
  for (let attempt = 0; attempt < MAX_ATTEMPTS;) {
    if (tryCreate(lockPath, content, where)) return heldLock(lockPath, content, where)
    const raw = readLock(lockPath, where)
    if (raw === undefined) {
      attempt += 1 // released meanwhile: try again at once
      continue
    }
    const pid = parsePid(raw)
    if (pid === undefined) {
      // The owner writes its pid right after creating the file; give it that moment.
      emptySince ??= Date.now()
      if (Date.now() - emptySince < EMPTY_LOCK_GRACE_MS) {
        sleep(10)
        continue
      }
    } else if (isAlive(pid)) {
      throw new SessionError({
        code: 'LOCKED',
        message: `${where}: "${filePath}" is locked by process ${pid}${pid === process.pid ? ' (this process: close the other session first)' : ''}; if no process uses it, delete "${lockPath}"`,
        details: { path: filePath, pid },
      })
    }
    moveStaleAside(lockPath, raw, where)
    attempt += 1
  }
  throw new SessionError({
    code: 'LOCKED',
    message: `${where}: could not take over the stale lock "${lockPath}" after ${MAX_ATTEMPTS} attempts; other processes keep racing for it`,
    details: { path: filePath },
  })
}

function tryCreate(lockPath: string, content: string, where: string): boolean {
  let fd: number
  try {
    fd = openSync(lockPath, 'wx', 0o644)
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    throw ioError(where, `cannot create the lock file "${lockPath}"`, error)
  }
  try {
    writeSync(fd, content)
  } catch (error) {
    // An empty lock would hold other openers off for the grace period: remove it.
    closeSync(fd)
    unlinkSync(lockPath)
    throw ioError(where, `cannot write the lock file "${lockPath}"`, error)
  }
  closeSync(fd)
  return true
}

function heldLock(lockPath: string, content: string, where: string): SessionLock {
  let held = true
  return {
    lockPath,
    release: () => {
      if (!held) return
      held = false
      // Only remove the file if it is still ours: a takeover may have replaced it.
      if (readLock(lockPath, where) !== content) return
      try {
        unlinkSync(lockPath)
      } catch (error) {
        if (errorCode(error) !== 'ENOENT')
          throw ioError(where, `cannot remove the lock file "${lockPath}"`, error)
      }
    },
  }
}

/** The lock file's text, or `undefined` when it does not exist. */
function readLock(lockPath: string, where: string): string | undefined {
  try {
    return readFileSync(lockPath, 'utf8')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw ioError(where, `cannot read the lock file "${lockPath}"`, error)
  }
}

function moveStaleAside(lockPath: string, stale: string, where: string): void {
  const aside = `${lockPath}.stale-${process.pid}-${randomUUID()}`
  try {
    renameSync(lockPath, aside)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return
    throw ioError(where, `cannot take over the stale lock file "${lockPath}"`, error)
  }
  const moved = readLock(aside, where)
  if (moved !== stale) {
    // Another process took the lock over between our read and our rename: give it back.
    try {
      linkSync(aside, lockPath)
    } catch {
      // A third process created a lock meanwhile; it owns the file now.
    }
  }
  try {
    unlinkSync(aside)
  } catch {
    // Leftover `.stale-` files are harmless.
  }
}

function parsePid(raw: string): number | undefined {
  // Only a complete first line counts: a crash may have cut the pid short.
  const match = /^([1-9][0-9]{0,9})\n/.exec(raw)
  return match?.[1] === undefined ? undefined : Number(match[1])
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === 'EPERM'
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
