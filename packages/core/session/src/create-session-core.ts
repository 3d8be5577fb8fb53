import { types } from 'node:util'
import { describeValue, type JsonValue } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from './deep-freeze.ts'
import { SessionError } from './errors.ts'
import {
  eventTypeProblem,
  MAX_TYPE_LENGTH,
  sourceEventSeqsProblem,
  surfaceOpProblem,
} from './event-fields.ts'
import { snapshotJsonValue } from './snapshot-json-value.ts'
import type { AppendOptions, ReadOptions, Session, SessionEvent, SurfaceOp } from './types.ts'

export interface SessionCoreOptions {
  readonly clock: () => Date
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
 */
export function createSessionCore<Extra extends object>(
  options: SessionCoreOptions,
  extra: Extra,
): Session & Extra {
  const log: SessionEvent[] = [...options.initialEvents]
  let view: readonly SessionEvent[] | undefined
  let closed = false

  const append = (type: string, data: unknown, appendOptions?: AppendOptions): SessionEvent => {
    const label = typeof type === 'string' && type.length <= MAX_TYPE_LENGTH ? JSON.stringify(type) : 'type'
    const where = `append(${label}, data${appendOptions === undefined ? '' : ', options'})`
    if (closed) throw new SessionError({ code: 'CLOSED', message: `${where}: the session is closed` })
    const typeProblem = eventTypeProblem(type)
    if (typeProblem !== undefined) {
      throw new SessionError({ code: 'INVALID_ARGUMENT', message: `${where}: type ${typeProblem}` })
    }
    const snapshot = snapshotJsonValue(data)
    if (!snapshot.ok) {
      throw new SessionError({
        code: 'NOT_JSON',
        message: `${where}: ${snapshot.path.replace(/^\$/, 'data')} ${snapshot.reason}`,
        details: { jsonPath: snapshot.path },
      })
    }
    const seq = log.length + 1
    const { surfaceOp, sourceEventSeqs } = readAppendOptions(where, appendOptions, seq)
    const event: SessionEvent = deepFreeze({
      seq,
      type,
      time: readClock(where, options.clock),
      ...(surfaceOp === undefined ? {} : { surfaceOp }),
      ...(sourceEventSeqs === undefined ? {} : { sourceEventSeqs }),
      data: snapshot.value,
    })
    options.persist(event)
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

function readAppendOptions(
  where: string,
  options: unknown,
  seq: number,
): { surfaceOp: SurfaceOp | undefined; sourceEventSeqs: readonly number[] | undefined } {
  if (options === undefined) return { surfaceOp: undefined, sourceEventSeqs: undefined }
  const plain = plainOptions(where, options)
  let surfaceOp: SurfaceOp | undefined
  let sourceEventSeqs: readonly number[] | undefined
  for (const [key, value] of Object.entries(plain)) {
    if (key === 'surfaceOp') {
      const problem = surfaceOpProblem(value)
      if (problem !== undefined) throw invalid(`${where}: options.surfaceOp ${problem}`)
      surfaceOp = value as SurfaceOp
    } else if (key === 'sourceEventSeqs') {
      const problem = sourceEventSeqsProblem(value, seq)
      if (problem !== undefined)
        throw invalid(`${where}: options.sourceEventSeqs${problem.startsWith('[') ? '' : ' '}${problem}`)
      sourceEventSeqs = value as readonly number[]
    } else {
      throw invalid(
        `${where}: options has an unknown key ${JSON.stringify(key)} (known: surfaceOp, sourceEventSeqs)`,
      )
    }
  }
  return { surfaceOp, sourceEventSeqs }
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

/** Options are read through a snapshot, so getters run once and proxies or odd values are refused cleanly. */
function plainOptions(where: string, options: unknown): Readonly<Record<string, JsonValue>> {
  const snapshot = snapshotJsonValue(options)
  if (!snapshot.ok) throw invalid(`${where}: ${snapshot.path.replace(/^\$/, 'options')} ${snapshot.reason}`)
  const value = snapshot.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${where}: options must be an object, got ${describeValue(value)}`)
  }
  return value as Readonly<Record<string, JsonValue>>
}

/** The clock's current time as ISO-8601, or `INVALID_ARGUMENT` when the clock misbehaves. */
export function readClock(where: string, clock: () => Date): string {
  let now: unknown
  try {
    now = clock()
  } catch (error) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: the session clock threw`,
      cause: error,
    })
  }
  if (!types.isDate(now) || Number.isNaN((now as Date).getTime())) {
    throw invalid(`${where}: the session clock returned ${describeValue(now)}, not a valid Date`)
  }
  return (now as Date).toISOString()
}

function invalid(message: string): SessionError {
  return new SessionError({ code: 'INVALID_ARGUMENT', message })
}
