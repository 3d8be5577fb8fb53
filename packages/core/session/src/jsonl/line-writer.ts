import { SessionError } from '../errors.ts'
import { ioError } from '../io-error.ts'
import type { HeldLock } from '../lock/session-lock.ts'
import type { SessionEvent } from '../types.ts'
import { formatEventLine } from './jsonl-format.ts'
import { sameFile, writeFully, type FileStat, type SessionFs } from './session-fs.ts'

export interface LineWriterOptions {
  readonly fs: SessionFs
  readonly fd: number
  /** The path the caller gave, for messages. */
  readonly path: string
  /** The file's real path and identity: it must still be the file there before each write. */
  readonly realPath: string
  readonly stat: FileStat
  readonly fsync: boolean
  /** Where the next line goes: the end of the last whole line. */
  readonly size: number
  readonly lock: HeldLock
}

/** Why appends stopped for good. */
type Stopped =
  { readonly kind: 'lost'; readonly why: string } | { readonly kind: 'unusable'; readonly cause: unknown }

/**
 * Appends one event line per `persist`, or throws and leaves the file as it was:
 * - Before writing, checks that the lock is still this session's and that the real path still names
 *   this file. If not, nothing is written and every later append throws `LOCKED`: another writer may
 *   be using the file, and two writers would overwrite each other's lines.
 * - A failed or short write is cut back (ftruncate to the previous end) and throws `IO`; the session
 *   stays usable, because the file again ends at its last whole event.
 * - A failed fsync, or a cut-back that fails, throws `IO` and stops all later appends: after a
 *   failed fsync the kernel may have dropped pages it had accepted, so what the file holds is unknown.
 * The in-memory log only grows after `persist` returns, so it always matches the file's whole lines.
 */
export function createLineWriter(options: LineWriterOptions): {
  persist: (event: SessionEvent) => void
  release: () => void
} {
  const { fs, fd, path, realPath, stat, fsync, lock } = options
  let size = options.size
  let stopped: Stopped | undefined

  /** Stops later appends; `error` is what the append that found the problem throws. */
  const stop = (reason: Stopped, error: SessionError): SessionError => {
    stopped ??= reason
    return error
  }

  const persist = (event: SessionEvent): void => {
    const where = `append(${JSON.stringify(event.type)}, data)`
    if (stopped !== undefined) throw stoppedError(where, path, stopped)
    const why = lock.lost() ?? movedAway()
    if (why !== undefined) {
      const reason: Stopped = { kind: 'lost', why }
      throw stop(reason, stoppedError(where, path, reason))
    }
    const bytes = Buffer.from(formatEventLine(event), 'utf8')
    try {
      writeFully(fs, fd, bytes, size)
    } catch (error) {
      const cutBack = rollBack()
      if (cutBack !== undefined) {
        throw stop(
          { kind: 'unusable', cause: cutBack },
          ioError(
            where,
            `cannot write to "${path}", nor cut the partial line back; no more appends, reopen it`,
            error,
          ),
        )
      }
      throw ioError(where, `cannot write to "${path}"; nothing was appended`, error)
    }
    if (fsync) {
      try {
        fs.fsync(fd)
      } catch (error) {
        rollBack()
        throw stop(
          { kind: 'unusable', cause: error },
          ioError(
            where,
            `cannot fsync "${path}"; the event was not appended, and after a failed fsync the file's contents on disk are uncertain: no more appends, reopen it`,
            error,
          ),
        )
      }
    }
    size += bytes.length
  }

  /** Cuts the file back to its last whole line; the error when that fails. */
  const rollBack = (): unknown => {
    try {
      fs.ftruncate(fd, size)
      return undefined
    } catch (error) {
      return error
    }
  }

  const movedAway = (): string | undefined => {
    const now = fs.stat(realPath)
    if (now === undefined) return `"${realPath}" was deleted or renamed`
    if (!sameFile(now, stat)) return `"${realPath}" is now another file`
    return undefined
  }

  const release = (): void => {
    let failure: unknown
    try {
      fs.close(fd)
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

function stoppedError(where: string, path: string, stopped: Stopped): SessionError {
  if (stopped.kind === 'lost') {
    return new SessionError({
      code: 'LOCKED',
      message: `${where}: this session no longer holds "${path}": ${stopped.why}; nothing was written, and no later append will be; reopen the file`,
      details: { path },
    })
  }
  return ioError(
    where,
    `"${path}" is unusable after an earlier failed write or fsync; nothing was appended, reopen it`,
    stopped.cause,
  )
}
