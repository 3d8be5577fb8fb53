import { SessionError } from '../errors.ts'
import type { AppendOptions } from '../types.ts'
import { Stamp } from './proven-data.ts'

/**
 * Append options this module copy built (`appendOptionsCiting`): `{ surfaceOp, sourceEventSeqs }`,
 * frozen, `sourceEventSeqs` a frozen one-element array of an integer ≥ 1 checked here. `append` reads
 * them without its generic walk (prototype, symbol and hidden keys, proxy checks, a copy of the
 * list): only the cited seq's order against the new event's seq is left to check (T58).
 *
 * The mark is a private class field stamped onto the object before it is frozen (as for proven event
 * data, `proven-data.ts`, whose `Stamp` it extends): it cannot be forged, copied by a spread or passed through a Proxy, and it
 * is a mark of its own, so proven event data is never taken for options or the other way round.
 */
class ProvenOptions extends Stamp {
  #options = true

  static has(value: object): boolean {
    return #options in value
  }
}

/** What `append` keeps of proven options: both keys always present. */
export interface CitingAppendOptions {
  readonly surfaceOp: 'append' | undefined
  readonly sourceEventSeqs: readonly [number]
}

/**
 * Options for `append` citing one earlier event (`sourceEventSeqs: [sourceSeq]`), with `surfaceOp:
 * 'append'` when `surfaceAppend` is true: what the agent loop passes with each `tool/call`,
 * `tool/began` and `tool/result`. Equal in meaning to the literal `{ surfaceOp?, sourceEventSeqs:
 * [sourceSeq] }`; `append` of any session of this package copy takes them without re-reading them.
 * Throws `SessionError` `INVALID_ARGUMENT` unless `sourceSeq` is an integer ≥ 1 (whether it is
 * earlier than the new event is checked by `append`, which knows the new seq).
 *
 * @example
 * session.append('tool/result', data, appendOptionsCiting(callSeq, true))
 */
export function appendOptionsCiting(sourceSeq: number, surfaceAppend = false): AppendOptions {
  if (typeof sourceSeq !== 'number' || !Number.isInteger(sourceSeq) || sourceSeq < 1) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `appendOptionsCiting(sourceSeq): sourceSeq must be an integer ≥ 1, got ${String(sourceSeq)}`,
    })
  }
  const options: CitingAppendOptions = {
    surfaceOp: surfaceAppend === true ? 'append' : undefined,
    sourceEventSeqs: Object.freeze([sourceSeq]) as readonly [number],
  }
  new ProvenOptions(options)
  return Object.freeze(options) as AppendOptions
}

/** True only for options `appendOptionsCiting` of this module copy returned. */
export function isCitingAppendOptions(value: unknown): value is CitingAppendOptions {
  return typeof value === 'object' && value !== null && ProvenOptions.has(value)
}
