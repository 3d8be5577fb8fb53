import { types } from 'node:util'
import { describeThrown, describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import { surfaceOpProblem } from './event-fields.ts'
import { isCitingAppendOptions } from './tool-events/citing-append-options.ts'
import type { SurfaceOp } from './types.ts'

export interface AppendFields {
  readonly surfaceOp: SurfaceOp | undefined
  /** A frozen copy, checked against the new event's seq. */
  readonly sourceEventSeqs: readonly number[] | undefined
}

const NO_FIELDS: AppendFields = Object.freeze({ surfaceOp: undefined, sourceEventSeqs: undefined })
const KNOWN = 'surfaceOp, sourceEventSeqs'

const objectKeys = Object.keys
const ownNames = Object.getOwnPropertyNames
const ownSymbols = Object.getOwnPropertySymbols
const hasOwn = Object.hasOwn
const getPrototypeOf = Reflect.getPrototypeOf

/**
 * Reads `append`'s options once each, without a generic snapshot: a proxy, a non-plain object, a
 * symbol or non-enumerable key, an unknown key (a typo) or a bad value is `INVALID_ARGUMENT`. Getters
 * run once; `sourceEventSeqs` is copied before it is checked, so nothing the caller does later can
 * change what was validated. `where` builds the message prefix, only when there is an error.
 */
export function readAppendOptions(options: unknown, seq: number, where: () => string): AppendFields {
  if (options === undefined) return NO_FIELDS
  // Built and checked by `appendOptionsCiting` (frozen, one seq ≥ 1): only its order is left (T58).
  if (isCitingAppendOptions(options)) {
    const cited = options.sourceEventSeqs[0]
    if (cited >= seq) {
      throw invalid(
        where,
        `options.sourceEventSeqs[0] is ${cited}, which is not an earlier event than seq ${seq}`,
      )
    }
    return options
  }
  if (typeof options !== 'object' || options === null || types.isProxy(options) || Array.isArray(options)) {
    throw invalid(where, `options must be an object, got ${describeOption(options)}`)
  }
  const proto = getPrototypeOf(options)
  if (proto !== Object.prototype && proto !== null) {
    throw invalid(where, `options must be a plain object, got ${describeValue(options)}`)
  }
  if (ownSymbols(options).length > 0) throw invalid(where, 'options has a symbol-keyed property')
  const keys = objectKeys(options)
  const names = ownNames(options)
  if (names.length !== keys.length) {
    const hidden = names.find((name) => !keys.includes(name)) as string
    throw invalid(where, `options.${hidden} is a non-enumerable property`)
  }
  let surfaceOp: SurfaceOp | undefined
  let sourceEventSeqs: readonly number[] | undefined
  for (const key of keys) {
    if (key !== 'surfaceOp' && key !== 'sourceEventSeqs') {
      throw invalid(where, `options has an unknown key ${JSON.stringify(key)} (known: ${KNOWN})`)
    }
    // A getter of an earlier key may have deleted this one.
    if (!hasOwn(options, key)) continue
    const value = readOnce(options, key, 'options', where)
    if (value === undefined) continue
    // Describing a proxy in a message could run its traps.
    if (typeof value === 'object' && value !== null && types.isProxy(value)) {
      throw invalid(where, `options.${key} is a Proxy`)
    }
    if (key === 'surfaceOp') {
      const problem = surfaceOpProblem(value)
      if (problem !== undefined) throw invalid(where, `options.surfaceOp ${problem}`)
      surfaceOp = value as SurfaceOp
    } else sourceEventSeqs = copySourceEventSeqs(value, seq, where)
  }
  return surfaceOp === undefined && sourceEventSeqs === undefined ? NO_FIELDS : { surfaceOp, sourceEventSeqs }
}

/** `container[key]`, running a getter at most once; `owner` names the container in an error. */
function readOnce(container: object, key: string | number, owner: string, where: () => string): unknown {
  try {
    return (container as Record<string | number, unknown>)[key]
  } catch (error) {
    const label = typeof key === 'number' ? `${owner}[${key}]` : `${owner}.${key}`
    throw invalid(where, `${label} has a getter that threw (${describeThrown(error)})`)
  }
}

/**
 * A frozen copy of `value` when it lists earlier seqs (integers ≥ 1, below `seq`, no repeats).
 * `readAppendOptions` refused a proxy before calling this: a proxy is not checked for again.
 */
function copySourceEventSeqs(value: unknown, seq: number, where: () => string): readonly number[] {
  const at = 'options.sourceEventSeqs'
  if (
    typeof value !== 'object' ||
    value === null ||
    !Array.isArray(value) ||
    getPrototypeOf(value) !== Array.prototype
  ) {
    throw invalid(where, `${at} must be an array of earlier seqs, got ${describeOption(value)}`)
  }
  const length = value.length
  // Sized once (a list grown by push reserves room for 16 more: most of an append's bytes).
  const copy = new Array<number>(length)
  // Small lists (the usual one or two seqs) check repeats by scanning; long ones with a set.
  const cited = length > 16 ? new Set<number>() : undefined
  for (let index = 0; index < length; index += 1) {
    if (!hasOwn(value, index)) throw invalid(where, `${at}[${index}] is a hole in a sparse array`)
    const item = readOnce(value, index, at, where)
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 1) {
      throw invalid(where, `${at}[${index}] must be an integer ≥ 1, got ${describeOption(item)}`)
    }
    // An event can only derive from events that exist before it.
    if (item >= seq) {
      throw invalid(where, `${at}[${index}] is ${item}, which is not an earlier event than seq ${seq}`)
    }
    if (cited === undefined ? repeats(copy, index, item) : cited.has(item)) {
      throw invalid(where, `${at}[${index}] repeats seq ${item}`)
    }
    cited?.add(item)
    copy[index] = item
  }
  return Object.freeze(copy)
}

/** Whether `item` is among the first `count` entries of `list`. */
function repeats(list: readonly number[], count: number, item: number): boolean {
  for (let index = 0; index < count; index++) if (list[index] === item) return true
  return false
}

function describeOption(value: unknown): string {
  return typeof value === 'object' && value !== null && types.isProxy(value)
    ? 'a Proxy'
    : describeValue(value)
}

function invalid(where: () => string, message: string): SessionError {
  return new SessionError({ code: 'INVALID_ARGUMENT', message: `${where()}: ${message}` })
}
