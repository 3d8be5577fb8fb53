import { createJsonSnapshotter, type JsonValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import type { EventClock } from './event-clock.ts'
import { MAX_TYPE_LENGTH, eventTypeProblem } from './event-fields.ts'
import { readAppendOptions } from './read-append-options.ts'
import { isProvenEventData } from './tool-events/proven-data.ts'
import type { AppendOptions, SessionEvent, SurfaceOp } from './types.ts'

/**
 * Checks one `append(type, data, options)` and builds its frozen event numbered `seq`, or throws
 * `SessionError` (`INVALID_ARGUMENT`, `NOT_JSON`). Shared by the synchronous and asynchronous
 * session cores, so every store validates alike.
 */
export type EventBuilder = (
  type: string,
  data: unknown,
  options: AppendOptions | undefined,
  seq: number,
) => SessionEvent

/**
 * `EventBuilder` for the options `{ surfaceOp, sourceEventSeqs: [cited] }` given as their values
 * (`appendCiting`): the same checks and the same event, without an options object to read.
 */
export type CitingEventBuilder = (
  type: string,
  data: unknown,
  cited: number,
  surfaceOp: 'append' | undefined,
  seq: number,
) => SessionEvent

/** Where `where()` names options that were given as values (`appendCiting`): "…, options)". */
const CITED = Object.freeze({})

/**
 * An event is built frozen: its `data` is a frozen snapshot (a frozen snapshot passed in is used as
 * it is, and so is data a tool event builder of this package copy made, T58), its `sourceEventSeqs`
 * a frozen copy, the rest primitives; so no second freezing walk.
 */
export function createEventBuilder(clock: EventClock): {
  readonly build: EventBuilder
  readonly buildCiting: CitingEventBuilder
} {
  // One snapshotter (one walker) serves every append; a getter inside `data` that appends again gets a fresh walker.
  // Appended data is not remembered as a reusable snapshot: that would cost a weak-map entry per event.
  const snapshotData = createJsonSnapshotter({ freeze: true, remember: false })
  // The append being built, for `where`: one function for every append rather than a closure (and
  // its context) per append. A getter of `data` or `options` may append again (to this session):
  // the inner append sets its own and gives the outer one back when it ends.
  let currentType: unknown
  let currentOptions: unknown
  // The frozen `[cited]` of the last citing event: a next one citing the same seq (a call's
  // `tool/began` and `tool/result`) shares it. Frozen numbers, so sharing shows only in identity.
  let lastCited = 0
  let lastSources: readonly number[] = Object.freeze([0])
  const where = (): string => appendWhere(currentType, currentOptions)
  const build: EventBuilder = (type, data, appendOptions, seq) => {
    const outerType = currentType
    const outerOptions = currentOptions
    currentType = type
    currentOptions = appendOptions
    try {
      checkType(type)
      const value = isProvenEventData(data) ? (data as JsonValue) : snapshotOf(data)
      const { surfaceOp, sourceEventSeqs } = readAppendOptions(appendOptions, seq, where)
      return buildEvent(seq, type, clock(where), surfaceOp, sourceEventSeqs, value)
    } finally {
      currentType = outerType
      currentOptions = outerOptions
    }
  }

  // `cited` is an integer ≥ 1 (`appendCiting` checked it, as `appendOptionsCiting` does); only its
  // order against the new event is left, checked where `readAppendOptions` checks it.
  const buildCiting: CitingEventBuilder = (type, data, cited, surfaceOp, seq) => {
    const outerType = currentType
    const outerOptions = currentOptions
    currentType = type
    currentOptions = CITED
    try {
      checkType(type)
      const value = isProvenEventData(data) ? (data as JsonValue) : snapshotOf(data)
      if (cited >= seq) {
        throw new SessionError({
          code: 'INVALID_ARGUMENT',
          message: `${where()}: options.sourceEventSeqs[0] is ${cited}, which is not an earlier event than seq ${seq}`,
        })
      }
      if (cited !== lastCited) {
        lastSources = Object.freeze([cited])
        lastCited = cited
      }
      const sources = lastSources
      return buildEvent(seq, type, clock(where), surfaceOp, sources, value)
    } finally {
      currentType = outerType
      currentOptions = outerOptions
    }
  }

  return { build, buildCiting }

  function checkType(type: unknown): void {
    if (typeof type !== 'string' || type.length === 0 || type.length > MAX_TYPE_LENGTH) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where()}: type ${eventTypeProblem(type)}`,
      })
    }
  }

  function snapshotOf(data: unknown): JsonValue {
    const snapshot = snapshotData(data)
    if (snapshot.ok) return snapshot.value
    throw new SessionError({
      code: 'NOT_JSON',
      message: `${where()}: ${snapshot.path.replace(/^\$/, 'data')} ${snapshot.reason}`,
      details: { jsonPath: snapshot.path },
    })
  }
}

/** How error messages name an append: `append("tool/call", data, options)`. */
export function appendWhere(type: unknown, options: unknown): string {
  const label = typeof type === 'string' && type.length <= MAX_TYPE_LENGTH ? JSON.stringify(type) : 'type'
  return `append(${label}, data${options === undefined ? '' : ', options'})`
}

/** The frozen event; one literal per shape keeps the field order of the file format. */
function buildEvent(
  seq: number,
  type: string,
  time: string,
  surfaceOp: SurfaceOp | undefined,
  sourceEventSeqs: readonly number[] | undefined,
  data: JsonValue,
): SessionEvent {
  if (sourceEventSeqs === undefined) {
    return Object.freeze(
      surfaceOp === undefined ? { seq, type, time, data } : { seq, type, time, surfaceOp, data },
    )
  }
  return Object.freeze(
    surfaceOp === undefined
      ? { seq, type, time, sourceEventSeqs, data }
      : { seq, type, time, surfaceOp, sourceEventSeqs, data },
  )
}
