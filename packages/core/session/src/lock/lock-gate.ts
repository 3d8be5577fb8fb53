import { SessionError } from '../errors.ts'
import { sameFile } from '../jsonl/session-fs.ts'
import type { LockHost } from './lock-host.ts'
import { closeQuietly, createFileExclusively, parseLock, readLockFile, removeQuietly } from './lock-file.ts'
import { createAbandonWatch, removeIfUnchanged } from './stale-files.ts'

/** How long to wait for another process that is inside the gate (it holds it for a few syscalls). */
const GATE_WAIT_MS = 2000
const POLL_MS = 5
/** Bounds the loop when files keep changing under it (each round makes progress for someone). */
const MAX_ROUNDS = 1000

/**
 * Runs `critical` while holding `<lockPath>.gate`, the file that serializes every removal of the lock
 * file (taking over a stale lock, releasing one's own). Creating the lock needs no gate: exclusive
 * creation is atomic by itself. So while a process holds the gate, the lock file can only go from
 * absent to present, never be removed or replaced by anyone else, and "check, then remove" is safe.
 *
 * A gate left by a crashed process (dead pid, or half-written past the grace period) is removed with
 * the same move-aside-and-compare step as a stale lock.
 */
export function withLockGate<T>(host: LockHost, lockPath: string, where: string, critical: () => T): T {
  const { fs } = host
  const gatePath = `${lockPath}.gate`
  const token = host.token()
  const text = `${host.pid}\n${token}\n`
  const abandoned = createAbandonWatch(host)
  const deadline = host.now() + GATE_WAIT_MS
  for (let round = 0; ; round += 1) {
    if (round >= MAX_ROUNDS) throw busy(undefined)
    const created = createFileExclusively(fs, gatePath, text, token)
    if (created !== undefined) {
      try {
        const seen = readLockFile(fs, gatePath)
        // Only a half-written gate can be judged abandoned and removed; ours never was, but check.
        if (seen !== undefined && sameFile(seen.stat, created.stat) && seen.text === text) return critical()
      } finally {
        release(created.stat)
        closeQuietly(fs, created.fd)
      }
      continue
    }
    const seen = readLockFile(fs, gatePath)
    if (seen === undefined) continue
    const holder = parseLock(seen.text)
    const stale = holder === undefined ? abandoned(seen) : !host.isAlive(holder.pid)
    if (stale) {
      removeIfUnchanged(fs, gatePath, seen, token)
      continue
    }
    if (host.now() >= deadline) throw busy(holder?.pid)
    host.sleep(POLL_MS)
  }

  function busy(pid: number | undefined): SessionError {
    return new SessionError({
      code: 'LOCKED',
      message: `${where}: another process${pid === undefined ? '' : ` (${pid})`} kept changing the lock "${lockPath}"; try again, and if no process uses it, delete "${gatePath}"`,
      details: { path: lockPath, ...(pid === undefined ? {} : { pid }) },
    })
  }

  function release(stat: { dev: number; ino: number }): void {
    const now = fs.lstat(gatePath)
    if (now !== undefined && sameFile(now, stat)) removeQuietly(fs, gatePath)
  }
}
