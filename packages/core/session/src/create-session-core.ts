import { describeValue, type JsonValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import type { EventClock } from './event-clock.ts'
import { MAX_TYPE_LENGTH, eventTypeProblem } from './event-fields.ts'
import { readAppendOptions, type AppendFields } from './read-append-options.ts'
import { DEFAULT_MAX_DEPTH } from './snapshot/snapshot-json-value.ts'
import { SnapshotWalker } from './snapshot/snapshot-walker.ts'
import type { AppendOptions, ReadOptions, Session, SessionEvent } from './types.ts'

export interface SessionCoreOptions {
  readonly clock: EventClock
  /** Events already in the store (validated, frozen, seqs 1..n). */
  readonly initialEvents: readonly SessionEvent[]
  /** Makes one event durable before `append` returns; throws `SessionError` to refuse it. */
  readonly persist: (event: SessionEvent) => void
  /** Releases the store's resources; called once, on the first `close()`. */
  readonly release: () => void
}

/**
 * The store-independent part of a session: validation, snapshots, seq numbering and reads.
 * `extra` adds store-specific read-only members (the file store's `path`, `repaired`).
 *
 * An event is built frozen: its `data` is a frozen snapshot (a frozen snapshot passed in is used as
 * it is), its `sourceEventSeqs` a frozen copy, the rest primitives; so no second freezing walk.
 */
export function createSessionCore<Extra extends object>(
  options: SessionCoreOptions,
  extra: Extra,
): Session & Extra {
  const log: SessionEvent[] = [...options.initialEvents]
  const { clock, persist } = options
  let view: readonly SessionEvent[] | undefined
  let closed = false
  // One walker serves every append; a getter inside `data` that appends again gets a fresh one.
  // Appended data is not remembered as a reusable snapshot: that would cost a weak-map entry per event.
  const walker = new SnapshotWalker(DEFAULT_MAX_DEPTH, true, false)

  const append = (type: string, data: unknown, appendOptions?: AppendOptions): SessionEvent => {
    const where = (): string => appendWhere(type, appendOptions)
    if (closed) throw new SessionError({ code: 'CLOSED', message: `${where()}: the session is closed` })
    if (typeof type !== 'string' || type.length === 0 || type.length > MAX_TYPE_LENGTH) {
      throw new SessionError({
        code: 'INVALID_ARGUMENT',
        message: `${where()}: type ${eventTypeProblem(type)}`,
      })
    }
    const snapshot = (walker.idle ? walker : new SnapshotWalker(DEFAULT_MAX_DEPTH, true, false)).run(data)
    if (!snapshot.ok) {
      throw new SessionError({
        code: 'NOT_JSON',
        message: `${where()}: ${snapshot.path.replace(/^\$/, 'data')} ${snapshot.reason}`,
        details: { jsonPath: snapshot.path },
      })
    }
    const seq = log.length + 1
    const fields = readAppendOptions(appendOptions, seq, where)
    const event = buildEvent(seq, type, clock(where), fields, snapshot.value)
    persist(event)
    log.push(event)
    view = undefined
    return event
  }

  const events = (): readonly SessionEvent[] => (view ??= Object.freeze(log.slice()))

  const read = (readOptions?: ReadOptions): readonly SessionEvent[] => {
    const { afterSeq, types: only } = readReadOptions(readOptions)
    // Seqs are 1..n without gaps, so `seq > afterSeq` starts at index `afterSeq`.
    const after = afterSeq === 0 ? log : log.slice(afterSeq)
    return Object.freeze(only === undefined ? after.slice() : after.filter((event) => only.has(event.type)))
  }

  const close = (): void => {
    if (closed) return
    closed = true
    options.release()
  }

  return Object.freeze({
    ...extra,
    append,
    events,
    read,
    close,
    get lastSeq(): number {
      return log.length
    },
    get closed(): boolean {
      return closed
    },
  })
}

function appendWhere(type: unknown, options: unknown): string {
  const label = typeof type === 'string' && type.length <= MAX_TYPE_LENGTH ? JSON.stringify(type) : 'type'
  return `append(${label}, data${options === undefined ? '' : ', options'})`
}

/** The frozen event; one literal per shape keeps the field order of the file format. */
function buildEvent(
  seq: number,
  type: string,
  time: string,
  fields: AppendFields,
  data: JsonValue,
): SessionEvent {
  const { surfaceOp, sourceEventSeqs } = fields
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

function readReadOptions(options: unknown): { afterSeq: number; types: ReadonlySet<string> | undefined } {
  const where = 'read(options)'
  if (options === undefined) return { afterSeq: 0, types: undefined }
  const plain = plainOptions(where, options)
  let afterSeq = 0
  let types: ReadonlySet<string> | undefined
  for (const [key, value] of Object.entries(plain)) {
    if (key === 'afterSeq') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw invalid(
          `${where}: options.afterSeq must be a non-negative integer, got ${describeValue(value)}`,
        )
      }
      afterSeq = value
    } else if (key === 'types') {
      if (!Array.isArray(value) || !value.every((type) => typeof type === 'string')) {
        throw invalid(`${where}: options.types must be an array of strings, got ${describeValue(value)}`)
      }
      types = new Set(value as string[])
    } else {
      throw invalid(`${where}: options has an unknown key ${JSON.stringify(key)} (known: afterSeq, types)`)
    }
  }
  return { afterSeq, types }
}

/** Read options go through a snapshot, so getters run once and proxies or odd values are refused cleanly. */
function plainOptions(where: string, options: unknown): Readonly<Record<string, JsonValue>> {
  const snapshot = new SnapshotWalker(DEFAULT_MAX_DEPTH, false).run(options)
  if (!snapshot.ok) throw invalid(`${where}: ${snapshot.path.replace(/^\$/, 'options')} ${snapshot.reason}`)
  const value = snapshot.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${where}: options must be an object, got ${describeValue(value)}`)
  }
  return value as Readonly<Record<string, JsonValue>>
}

function invalid(message: string): SessionError {
  return new SessionError({ code: 'INVALID_ARGUMENT', message })
}
