import {
  createJsonSnapshotter,
  type JsonValue,
  type ToolMessage,
  type ToolResultContent,
} from '@deepseek-ai/dsh-llm'
import { SessionError } from '../errors.ts'
import type { ToolCallRecordedTimings, ToolResultEventData } from '../types.ts'
import { copyResultContent } from './copy-result-content.ts'
import { freezeProven } from './proven-data.ts'
import {
  checkBoolean,
  checkNumber,
  checkRecord,
  checkString,
  invalid,
  readFailed,
  type FieldReader,
} from './read-fields.ts'

/** What `toolResultEventData` builds a `tool/result`'s data from. */
export interface ToolResultEventFields {
  readonly turn: number
  readonly step: number
  /** The call the result answers; becomes the `callId` of the message's `tool-result` block. */
  readonly callId: string
  /** Plain text, or text and image blocks, as `createToolResultMessage` takes them. */
  readonly content: string | readonly ToolResultContent[]
  readonly isError: boolean
  /** A failure's `error.info`: `{ name, code }`. */
  readonly error?: { readonly name: string; readonly code: string } | undefined
  readonly meta?: JsonValue | undefined
  readonly timings?: ToolCallRecordedTimings | undefined
  readonly rewrittenArguments?: string | undefined
}

const READER: FieldReader = { where: 'toolResultEventData(fields)' }

/**
 * `meta` is the only part of a result the builder cannot build from checked primitives: it is
 * snapshotted (checked, copied and frozen), unless it is a frozen snapshot already, which is kept by
 * reference. One level below the data's root, so one level less than `append`'s limit of 1000.
 */
const snapshotMeta = createJsonSnapshotter({ freeze: true, remember: false, maxDepth: 999 })

/**
 * The `data` of a `tool/result` event (T28, T29), built and frozen by the session package itself
 * (T58): `{ turn, step, message, error?, meta?, timings?, rewrittenArguments? }`, where `message` is
 * what `createToolResultMessage({ callId, content, isError })` returns (fresh frozen blocks made from
 * the checked strings of `content`). `append('tool/result', data, …)` of any session of this package
 * copy keeps it by reference, without walking, copying or freezing it again. Each field of `fields`
 * is read once and checked for its type; other keys are not read. Throws `SessionError`
 * `INVALID_ARGUMENT` naming the field, or `NOT_JSON` (with `details.jsonPath`) for a `meta` or a
 * number that is not lossless JSON.
 *
 * @example
 * const data = toolResultEventData({ turn: 1, step: 1, callId: 'c1', content: 'ok', isError: false })
 * session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] })
 */
export function toolResultEventData(fields: ToolResultEventFields): ToolResultEventData {
  const record = checkRecord(READER, fields, 'fields') as unknown as ToolResultEventFields
  // Each field read once; `at` names the one whose getter threw.
  let at = 'fields.turn'
  let turn, step, callId, content, isError, error, meta, timings, rewrittenArguments: unknown
  try {
    turn = record.turn
    at = 'fields.step'
    step = record.step
    at = 'fields.callId'
    callId = record.callId
    at = 'fields.content'
    content = record.content
    at = 'fields.isError'
    isError = record.isError
    at = 'fields.error'
    error = record.error
    at = 'fields.meta'
    meta = record.meta
    at = 'fields.timings'
    timings = record.timings
    at = 'fields.rewrittenArguments'
    rewrittenArguments = record.rewrittenArguments
  } catch (thrown) {
    throw readFailed(READER, at, thrown)
  }
  const id = checkString(READER, callId, 'fields.callId')
  if (id.length === 0) throw invalid(READER, 'fields.callId must not be empty')
  const message: ToolMessage = Object.freeze({
    role: 'tool',
    content: Object.freeze([
      Object.freeze({
        type: 'tool-result',
        callId: id,
        content: copyResultContent(READER, content, 'fields.content'),
        isError: checkBoolean(READER, isError, 'fields.isError'),
      }),
    ]),
  })
  const turnValue = checkNumber(READER, turn, 'fields.turn')
  const stepValue = checkNumber(READER, step, 'fields.step')
  // What a step's result records (timings, nothing else optional) is one literal; each key added
  // later is a map transition of its own.
  if (
    error === undefined &&
    meta === undefined &&
    rewrittenArguments === undefined &&
    timings !== undefined
  ) {
    const data = { turn: turnValue, step: stepValue, message, timings: copyTimings(timings) }
    return freezeProven(data, 'tool/result') as unknown as ToolResultEventData
  }
  const data: Record<string, unknown> = { turn: turnValue, step: stepValue, message }
  if (error !== undefined) data.error = copyErrorInfo(error)
  if (meta !== undefined) data.meta = snapshotOf(meta)
  if (timings !== undefined) data.timings = copyTimings(timings)
  if (rewrittenArguments !== undefined) {
    data.rewrittenArguments = checkString(READER, rewrittenArguments, 'fields.rewrittenArguments')
  }
  return freezeProven(data, 'tool/result') as unknown as ToolResultEventData
}

function copyErrorInfo(value: unknown): { name: string; code: string } {
  const at = 'fields.error'
  const info = checkRecord(READER, value, at)
  let field = 'name'
  let name, code: unknown
  try {
    name = info.name
    field = 'code'
    code = info.code
  } catch (error) {
    throw readFailed(READER, `${at}.${field}`, error)
  }
  return Object.freeze({
    name: checkString(READER, name, `${at}.name`),
    code: checkString(READER, code, `${at}.code`),
  })
}

/**
 * The timings object the last result got: fresh, frozen, made of checked numbers. A step's calls
 * mostly record the same tenths of a millisecond, so the next result whose three numbers are equal
 * shares it (one object and one `Object.freeze` less per result; freezing is most of what building
 * an event costs). Frozen plain numbers: sharing it between events shows nowhere but in identity.
 */
let lastTimings: ToolCallRecordedTimings = Object.freeze({ queueMs: 0, runMs: 0, commitMs: 0 })

function copyTimings(value: unknown): ToolCallRecordedTimings {
  const at = 'fields.timings'
  const timings = checkRecord(READER, value, at)
  let field = 'queueMs'
  let queueMs, runMs, commitMs: unknown
  try {
    queueMs = timings.queueMs
    field = 'runMs'
    runMs = timings.runMs
    field = 'commitMs'
    commitMs = timings.commitMs
  } catch (error) {
    throw readFailed(READER, `${at}.${field}`, error)
  }
  const queue = checkNumber(READER, queueMs, `${at}.queueMs`)
  const run = checkNumber(READER, runMs, `${at}.runMs`)
  const commit = checkNumber(READER, commitMs, `${at}.commitMs`)
  const last = lastTimings
  // The checked numbers (-0 read as 0) equal the last result's: its frozen object serves again.
  if (last.queueMs === queue && last.runMs === run && last.commitMs === commit) return last
  return (lastTimings = Object.freeze({ queueMs: queue, runMs: run, commitMs: commit }))
}

function snapshotOf(meta: unknown): JsonValue {
  const snapshot = snapshotMeta(meta)
  if (snapshot.ok) return snapshot.value
  const path = snapshot.path.replace(/^\$/, '$.meta')
  throw new SessionError({
    code: 'NOT_JSON',
    message: `${READER.where}: ${path.replace(/^\$/, 'fields')} ${snapshot.reason}`,
    details: { jsonPath: path },
  })
}
