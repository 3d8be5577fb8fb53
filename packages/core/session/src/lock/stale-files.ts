import { sameFile, type SessionFs } from '../jsonl/session-fs.ts'
import type { LockHost } from './lock-host.ts'
import { readLockFile, removeQuietly, type LockSnapshot } from './lock-file.ts'

/** How long a lock file may stay unreadable (empty or cut short) before it counts as abandoned. */
export const HALF_WRITTEN_GRACE_MS = 500

/**
 * Decides when a half-written lock file was abandoned by a crash. The clock starts when a given file
 * is first seen and starts again whenever what is seen changes (another file, other bytes, another
 * mtime), so a fresh half-written file is never judged by an older one's age.
 */
export function createAbandonWatch(host: LockHost): (seen: LockSnapshot) => boolean {
  let key = ''
  let since = 0
  return (seen) => {
    const { dev, ino, size, mtimeMs } = seen.stat
    const seenKey = `${dev}:${ino}:${size}:${mtimeMs}:${seen.text}`
    if (seenKey !== key) {
      key = seenKey
      since = host.now()
      return false
    }
    return host.now() - since >= HALF_WRITTEN_GRACE_MS
  }
}

/**
 * Removes the file at `path` only if it is still the one judged stale: it is first moved aside
 * (rename is atomic), then compared by inode and text with what was judged; anything else that was
 * moved is linked back. Unlike "check, then unlink", this never deletes a file someone created after
 * the check. The token makes the aside name private.
 */
export function removeIfUnchanged(fs: SessionFs, path: string, judged: LockSnapshot, token: string): void {
  const aside = `${path}.stale-${token}`
  try {
    fs.rename(path, aside)
  } catch {
    return // gone already: someone else removed it
  }
  let moved: LockSnapshot | undefined
  try {
    moved = readLockFile(fs, aside)
  } catch {
    moved = undefined
  }
  if (moved === undefined || !sameFile(moved.stat, judged.stat) || moved.text !== judged.text) {
    // Someone replaced the stale file between the check and the move: give theirs back. If a third
    // party created a file meanwhile, the displaced owner finds out when it verifies its lock.
    try {
      fs.link(aside, path)
    } catch {
      // `path` is taken again; nothing to restore.
    }
  }
  removeQuietly(fs, aside)
}
