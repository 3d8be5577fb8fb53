import { SessionError } from '../errors.ts'
import { ioError } from '../io-error.ts'
import type { HeldLock } from '../lock/session-lock.ts'
import type { JsonlDurability, SessionEvent } from '../types.ts'
import { formatEventLine } from './jsonl-format.ts'
import { writeFully, type SessionFs } from './session-fs.ts'

export interface LineWriterOptions {
  readonly fs: SessionFs
  readonly fd: number
  /** The path the caller gave, for messages. */
  readonly path: string
  /** The file's real path, for messages. */
  readonly realPath: string
  readonly durability: JsonlDurability
  /** Where the next line goes: the end of the last whole line. */
  readonly size: number
  readonly lock: HeldLock
}

/** Why appends stopped for good. */
type Stopped =
  { readonly kind: 'lost'; readonly why: string } | { readonly kind: 'unusable'; readonly cause: unknown }

export interface LineWriter {
  /** Makes one event durable per the durability (`'write'`, `'fsync'`), or holds it for `commit` (`'step'`, `'step-fsync'`). */
  readonly persist: (event: SessionEvent) => void
  /** Writes the held events in one write (and one fsync with `'step-fsync'`); nothing to do otherwise. */
  readonly commit: () => void
  /** Events persisted and not yet written (`'step'` durabilities only). */
  readonly uncommitted: () => number
  /** Commits what is held (T59), then closes the file and releases the lock. */
  readonly release: () => void
}

/**
 * Appends event lines, one write per event (`'write'`, `'fsync'`) or one per commit point (`'step'`,
 * `'step-fsync'`, T59), or throws and leaves the file as it was:
 * - Before every write, checks on the descriptors it holds that the lock file is still linked and
 *   that the session file is still linked and exactly as long as this writer left it (T60). If not,
 *   nothing is written and every later append throws `LOCKED`: another writer may be using the
 *   file, and two writers would overwrite each other's lines.
 * - A failed or short write is cut back (ftruncate to the previous end) and throws `IO`. With one
 *   write per event the session stays usable, because the file again ends at its last whole event
 *   and the event is not in the log; a failed commit stops all later appends, because the events it
 *   held are in the log already and not in the file.
 * - A failed fsync, or a cut-back that fails, throws `IO` and stops all later appends: after a
 *   failed fsync the kernel may have dropped pages it had accepted, so what the file holds is unknown.
 */
export function createLineWriter(options: LineWriterOptions): LineWriter {
  const { fs, fd, path, realPath, lock, durability } = options
  const grouped = durability === 'step' || durability === 'step-fsync'
  const fsync = durability === 'fsync' || durability === 'step-fsync'
  let size = options.size
  let stopped: Stopped | undefined
  /** Events persisted and not yet written, in seq order (grouped durabilities). */
  let held: SessionEvent[] = []
  /** The commits' bytes, reused from commit to commit (`encodeCommit`). */
  let scratch: Buffer | undefined

  /** Stops later appends; `error` is what the append that found the problem throws. */
  const stop = (reason: Stopped, error: SessionError): SessionError => {
    stopped ??= reason
    return error
  }

  /** Throws unless this writer may write now: nothing stopped it, and the file is still its own. */
  const checkBeforeWrite = (writer: Writer): void => {
    if (stopped !== undefined) throw stoppedError(whereOf(writer), path, stopped)
    const why = lock.stillHeld() ?? changedUnderneath()
    if (why !== undefined) {
      const reason: Stopped = { kind: 'lost', why }
      throw stop(reason, stoppedError(whereOf(writer), path, reason))
    }
  }

  /** Writes `bytes` at the end and fsyncs when asked; `lost` says what a failure leaves behind. */
  const write = (writer: Writer, bytes: Uint8Array, lost: string | undefined): void => {
    try {
      writeFully(fs, fd, bytes, size)
    } catch (error) {
      const cutBack = rollBack()
      if (cutBack !== undefined || lost !== undefined) {
        throw stop(
          { kind: 'unusable', cause: cutBack ?? error },
          ioError(
            whereOf(writer),
            cutBack === undefined
              ? `cannot write to "${path}"; ${lost}: no more appends, reopen it`
              : `cannot write to "${path}", nor cut the partial line back; no more appends, reopen it`,
            error,
          ),
        )
      }
      throw ioError(whereOf(writer), `cannot write to "${path}"; nothing was appended`, error)
    }
    if (fsync) {
      try {
        fs.fsync(fd)
      } catch (error) {
        rollBack()
        throw stop(
          { kind: 'unusable', cause: error },
          ioError(
            whereOf(writer),
            `cannot fsync "${path}"; ${lost ?? 'the event was not appended'}, and after a failed fsync the file's contents on disk are uncertain: no more appends, reopen it`,
            error,
          ),
        )
      }
    }
    size += bytes.length
  }

  const persist = (event: SessionEvent): void => {
    if (grouped) {
      if (stopped !== undefined) throw stoppedError(whereOf(event), path, stopped)
      held.push(event)
      return
    }
    // The message prefix is built only for an error: it costs as much as a short line's checks.
    checkBeforeWrite(event)
    write(event, Buffer.from(formatEventLine(event), 'utf8'), undefined)
  }

  const commit = (): void => {
    if (held.length === 0) return
    checkBeforeWrite(COMMIT)
    const events = held
    let text = ''
    for (const event of events) text += formatEventLine(event)
    const first = events[0]!.seq
    const last = events[events.length - 1]!.seq
    const lost =
      first === last
        ? `event ${first} is in this session's memory and not in the file`
        : `events ${first}–${last} are in this session's memory and not in the file`
    write(COMMIT, encodeCommit(text), lost)
    held = []
  }

  /**
   * `text` as UTF-8, encoded into the writer's reused buffer: `Buffer.from` would measure the text,
   * then allocate a buffer outside Node's small pool and encode it, for every step. The write is
   * synchronous and copies the bytes, so the next commit may overwrite them. A commit longer than
   * `REUSED_UNITS` gets a buffer of its own, so no writer keeps a huge one.
   */
  const encodeCommit = (text: string): Uint8Array => {
    if (text.length > REUSED_UNITS) return Buffer.from(text, 'utf8')
    // Three bytes per UTF-16 unit at most (a surrogate pair: four bytes for two units).
    const most = text.length * 3
    if (scratch === undefined || scratch.length < most) {
      scratch = Buffer.allocUnsafeSlow(Math.max(most, MIN_SCRATCH))
    }
    return scratch.subarray(0, scratch.write(text, 0, 'utf8'))
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

  /** Why the session file is no longer as this writer left it (T60), from its descriptor: one `fstat`. */
  const changedUnderneath = (): string | undefined => {
    const now = fs.fstat(fd)
    if (now.nlink === 0) return `"${realPath}" was deleted or replaced`
    if (now.size !== size) {
      return `"${realPath}" is ${now.size} bytes long, not the ${size} this session wrote: another writer has written to it, or cut it`
    }
    return undefined
  }

  /** Commits what is held (unless an earlier failure stopped the writer: that one was reported), then closes. */
  const release = (): void => {
    let failure: unknown
    try {
      if (stopped === undefined) commit()
    } catch (error) {
      failure = error
    }
    try {
      fs.close(fd)
    } catch (error) {
      failure ??= error
    }
    try {
      lock.release()
    } catch (error) {
      failure ??= error
    }
    if (failure === undefined) return
    throw SessionError.isInstance(failure) ? failure : ioError('close()', `cannot close "${path}"`, failure)
  }

  return { persist, commit, uncommitted: () => held.length, release }
}

/** Commits up to this many UTF-16 units are encoded into the writer's reused buffer (at most 768 KiB). */
const REUSED_UNITS = 256 * 1024

/** The reused buffer's first size: a 100-call step's lines (about 50 KB) fit. */
const MIN_SCRATCH = 64 * 1024

/** Who writes: the append of one event, or a commit. Errors name it (`whereOf`). */
type Writer = SessionEvent | typeof COMMIT

const COMMIT = 'commit()'

/** How error messages name a writer: `append("tool/call", data)` or `commit()`. */
function whereOf(writer: Writer): string {
  return writer === COMMIT ? COMMIT : `append(${JSON.stringify(writer.type)}, data)`
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
