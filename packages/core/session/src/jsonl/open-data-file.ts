import { constants } from 'node:fs'
import { SessionError } from '../errors.ts'
import { errorCode, ioError } from '../io-error.ts'
import type { LockHost } from '../lock/lock-host.ts'
import { closeQuietly } from '../lock/lock-file.ts'
import { sameFile, type FileStat } from './session-fs.ts'

/** The session file, open for reading and writing, with what names it. */
export interface DataFile {
  readonly fd: number
  /** Device and inode: what the lock guards, whatever name was used to open it. */
  readonly stat: FileStat
  /** The file's one real path (symlinks and `..` resolved); the lock lives next to it. */
  readonly realPath: string
}

const ATTEMPTS = 4

/**
 * Opens (creating if needed) the file at `path` and finds its identity and real path, refusing what
 * a lock next to the real path could not protect:
 * - a file this process already has open under any name (`LOCKED`, found by device:inode);
 * - a file with more than one hard link (`HARD_LINKED`): a writer through another link would look
 *   for its lock next to that other name, and a portable Node process has no lock on the inode
 *   itself to stop it.
 * The descriptor is opened before the lock is taken but nothing is read or written until it is held.
 */
export function openDataFile(host: LockHost, path: string, where: string): DataFile {
  const { fs } = host
  for (let attempt = 1; ; attempt += 1) {
    let fd: number
    try {
      // Read-write without O_APPEND: lines are written at a tracked offset so a failed write can be cut back.
      fd = fs.open(path, constants.O_RDWR | constants.O_CREAT, 0o644)
    } catch (error) {
      throw ioError(where, `cannot open "${path}"`, error)
    }
    try {
      const stat = fs.fstat(fd)
      const key = `${stat.dev}:${stat.ino}`
      const openAs = host.heldFiles.get(key)
      if (openAs !== undefined) {
        throw new SessionError({
          code: 'LOCKED',
          message: `${where}: "${path}" is locked by process ${host.pid} (this process: close the other session first)${openAs === path ? '' : `; it is open there as "${openAs}", the same file`}`,
          details: { path, pid: host.pid },
        })
      }
      if (stat.nlink > 1) {
        throw new SessionError({
          code: 'HARD_LINKED',
          message: `${where}: "${path}" has ${stat.nlink} hard links; a session file must have a single name so that every writer meets its lock (remove the other links, or copy the file)`,
          details: { path },
        })
      }
      const realPath = realPathOf(path)
      const named = realPath === undefined ? undefined : fs.stat(realPath)
      // Deleted, renamed or replaced between the open and the lookup: look again.
      if (realPath !== undefined && named !== undefined && sameFile(named, stat) && stat.nlink === 1) {
        return { fd, stat, realPath }
      }
      if (attempt >= ATTEMPTS) {
        throw ioError(where, `cannot pin down "${path}"`, new Error('it keeps being renamed or replaced'))
      }
    } catch (error) {
      closeQuietly(fs, fd)
      if (SessionError.isInstance(error)) throw error
      throw ioError(where, `cannot inspect "${path}"`, error)
    }
    closeQuietly(fs, fd)
  }

  function realPathOf(name: string): string | undefined {
    try {
      return fs.realpath(name)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined
      throw error
    }
  }
}
