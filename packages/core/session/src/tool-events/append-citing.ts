import { SessionError } from '../errors.ts'
import type { AnySession, AsyncSession, Session, SessionEvent } from '../types.ts'
import { appendOptionsCiting } from './citing-append-options.ts'
import { Stamp } from './proven-data.ts'

/** A session's own `append` of an event citing `cited` (an integer ≥ 1): no options object to read. */
export type AppendCitingEntry = (
  type: string,
  data: unknown,
  cited: number,
  surfaceOp: 'append' | undefined,
) => SessionEvent

/**
 * The mark of a session this module copy made, holding its `AppendCitingEntry`: a private class field
 * stamped onto the session object before it is frozen (as for proven event data, `proven-data.ts`).
 * It cannot be forged, copied or passed through a Proxy, so only the session's own entry is ever
 * called, and a session of another copy of the package (or of the caller) takes the options path.
 */
class CitingEntry extends Stamp {
  readonly #append: AppendCitingEntry

  constructor(target: object, append: AppendCitingEntry) {
    super(target)
    this.#append = append
  }

  static of(value: object): AppendCitingEntry | undefined {
    return #append in value ? (value as unknown as CitingEntry).#append : undefined
  }
}

/** Gives `session` (not yet frozen) its entry for `appendCiting`. */
export function stampCitingEntry(session: object, append: AppendCitingEntry): void {
  new CitingEntry(session, append)
}

/**
 * `session.append(type, data, appendOptionsCiting(sourceSeq, surfaceAppend))`, without the options
 * object: the same checks, the same event (`sourceEventSeqs: [sourceSeq]`, frozen, and `surfaceOp:
 * 'append'` when `surfaceAppend` is true), the same errors. A synchronous session of this package
 * copy builds the event from the seq directly, so a step's results allocate no options; any other
 * session gets the options. The seq is passed as a value (no options object: that object per result is
 * what this saves). Throws `SessionError` `INVALID_ARGUMENT` unless `sourceSeq` is an integer ≥ 1,
 * before anything is appended; the rest throws (or rejects) as `append` does.
 *
 * @example
 * appendCiting(session, 'tool/result', toolResultEventData(fields), callSeq, true)
 */
export function appendCiting(
  session: Session,
  type: string,
  data: unknown,
  sourceSeq: number,
  surfaceAppend?: boolean,
): SessionEvent
export function appendCiting(
  session: AsyncSession,
  type: string,
  data: unknown,
  sourceSeq: number,
  surfaceAppend?: boolean,
): Promise<SessionEvent>
export function appendCiting(
  session: AnySession,
  type: string,
  data: unknown,
  sourceSeq: number,
  surfaceAppend?: boolean,
): SessionEvent | Promise<SessionEvent>
export function appendCiting(
  session: AnySession,
  type: string,
  data: unknown,
  sourceSeq: number,
  surfaceAppend = false,
): SessionEvent | Promise<SessionEvent> {
  if (typeof sourceSeq !== 'number' || !Number.isInteger(sourceSeq) || sourceSeq < 1) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `appendCiting(session, type, data, sourceSeq): sourceSeq must be an integer ≥ 1, got ${String(sourceSeq)}`,
    })
  }
  const own = typeof session === 'object' && session !== null ? CitingEntry.of(session) : undefined
  if (own !== undefined) return own(type, data, sourceSeq, surfaceAppend === true ? 'append' : undefined)
  return session.append(type, data, appendOptionsCiting(sourceSeq, surfaceAppend))
}
