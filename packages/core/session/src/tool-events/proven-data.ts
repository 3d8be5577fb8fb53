/**
 * Data a session may keep by reference: the root of a frozen value built by this module copy's tool
 * event builders, whose every part is either a primitive they checked, an object they created and
 * froze, or a frozen JSON snapshot (T58).
 *
 * The mark is a private class field stamped onto the plain object before it is frozen: no code
 * outside this module can add it (a private name cannot be forged, copied by a spread, read by
 * reflection or passed through a Proxy), another copy of the package has its own class and so its own
 * mark, and `#proven in value` is one fast check. A weak set would do the same at several times the
 * cost per event (an insertion, and an ephemeron for the garbage collector to trace).
 */
// Returning `target` makes `new Proven(target)` install the field on `target` itself: the only way
// to give a private field to an object of another class (here a plain JSON object). A class with
// only a constructor, on purpose.
// eslint-disable-next-line @typescript-eslint/no-extraneous-class
export class Stamp {
  constructor(target: object) {
    return target
  }
}

/** Which builder made proven data: its shape, for the JSONL line writer (`format-proven-data.ts`). */
export type ProvenKind = 'tool/call' | 'tool/result'

// One mark per builder: the kind is told by which private field the data carries, as unforgeable
// as the mark itself.
class ProvenCall extends Stamp {
  #call = true

  static has(value: object): boolean {
    return #call in value
  }
}

class ProvenResult extends Stamp {
  #result = true

  static has(value: object): boolean {
    return #result in value
  }
}

/** Marks `data` (a plain object this module built, not yet frozen) as proven data of `kind`, then freezes it. */
export function freezeProven<T extends object>(data: T, kind: ProvenKind): T {
  if (kind === 'tool/call') new ProvenCall(data)
  else new ProvenResult(data)
  return Object.freeze(data)
}

/** True only for data a tool event builder of this module copy returned. */
export function isProvenEventData(value: unknown): boolean {
  return provenKind(value) !== undefined
}

/** Which tool event builder of this module copy made `value`; `undefined` for any other value. */
export function provenKind(value: unknown): ProvenKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if (ProvenResult.has(value)) return 'tool/result'
  return ProvenCall.has(value) ? 'tool/call' : undefined
}
