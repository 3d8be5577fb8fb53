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
  invalid,
  readBoolean,
  readField,
  readNumber,
  readOptionalString,
  readRecord,
  readString,
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
  const at = 'fields'
  const record = readRecord(READER, fields, at)
  const turn = readNumber(READER, record, 'turn', at)
  const step = readNumber(READER, record, 'step', at)
  const callId = readString(READER, record, 'callId', at)
  if (callId.length === 0) throw invalid(READER, 'fields.callId must not be empty')
  const content = copyResultContent(READER, readField(READER, record, 'content', at), 'fields.content')
  const isError = readBoolean(READER, record, 'isError', at)
  const message: ToolMessage = Object.freeze({
    role: 'tool',
    content: Object.freeze([Object.freeze({ type: 'tool-result', callId, content, isError })]),
  })
  const data: Record<string, unknown> = { turn, step, message }
  const error = readField(READER, record, 'error', at)
  if (error !== undefined) {
    const info = readRecord(READER, error, 'fields.error')
    data.error = Object.freeze({
      name: readString(READER, info, 'name', 'fields.error'),
      code: readString(READER, info, 'code', 'fields.error'),
    })
  }
  const meta = readField(READER, record, 'meta', at)
  if (meta !== undefined) data.meta = snapshotOf(meta)
  const timings = readField(READER, record, 'timings', at)
  if (timings !== undefined) {
    const read = readRecord(READER, timings, 'fields.timings')
    data.timings = Object.freeze({
      queueMs: readNumber(READER, read, 'queueMs', 'fields.timings'),
      runMs: readNumber(READER, read, 'runMs', 'fields.timings'),
      commitMs: readNumber(READER, read, 'commitMs', 'fields.timings'),
    })
  }
  const rewrittenArguments = readOptionalString(READER, record, 'rewrittenArguments', at)
  if (rewrittenArguments !== undefined) data.rewrittenArguments = rewrittenArguments
  return freezeProven(data) as unknown as ToolResultEventData
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
