import { DshError, type DshErrorOptions, type ErrorKind } from '@deepseek-ai/dsh-llm'

export type SessionErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_JSON'
  | 'CLOSED'
  | 'CORRUPT_LINE'
  | 'CORRUPT_EVENT'
  | 'UNSUPPORTED_FORMAT'
  | 'LOCKED'
  | 'HARD_LINKED'
  | 'IO'

/** Machine-readable facts about a failure, beside the human message. */
export interface SessionErrorDetails {
  /** The session file involved (file store errors). */
  readonly path?: string
  /** 1-based line number of a corrupt line (`CORRUPT_LINE`). */
  readonly line?: number
  /** Pid holding the lock (`LOCKED`); this process's pid when the session lost its lock. */
  readonly pid?: number
  /** Format version found in the file and the newest one this build reads (`UNSUPPORTED_FORMAT`). */
  readonly foundVersion?: unknown
  readonly supportedVersion?: number
  /** Where a value stopped being lossless JSON (`NOT_JSON`), e.g. `$.meta.x`. */
  readonly jsonPath?: string
  /** The session involved, for stores that name sessions by id (a database store). */
  readonly sessionId?: string
  /** The seq of a stored event that cannot be read back (`CORRUPT_EVENT`). */
  readonly seq?: number
  /** Who holds the session (`LOCKED`, database stores): the holder's own description of itself. */
  readonly holder?: string
}

export interface SessionErrorOptions extends DshErrorOptions<SessionErrorCode> {
  readonly details?: SessionErrorDetails
}

// Corruption, format and I/O failures happen underneath the caller; everything else is misuse.
const SYSTEM_CODES: ReadonlySet<SessionErrorCode> = new Set([
  'CORRUPT_LINE',
  'CORRUPT_EVENT',
  'UNSUPPORTED_FORMAT',
  'IO',
])

/**
 * Misuse of a session (bad arguments, non-JSON data, append after close, a locked or hard-linked
 * file, a session another writer holds) and failures of a store (corrupt lines or stored events,
 * unsupported formats, I/O). `kind` defaults from `code`.
 */
export class SessionError extends DshError<SessionErrorCode> {
  readonly details: Readonly<SessionErrorDetails>

  constructor(options: SessionErrorOptions) {
    const kind: ErrorKind = options.kind ?? (SYSTEM_CODES.has(options.code) ? 'system' : 'user')
    super('session', { ...options, kind })
    this.details = Object.freeze({ ...options.details })
  }

  static isInstance(value: unknown): value is SessionError {
    return DshError.isOfFamily(value, 'session')
  }
}
