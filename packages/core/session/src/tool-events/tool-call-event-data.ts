import type { ToolCallEventData } from '../types.ts'
import { freezeProven } from './proven-data.ts'
import {
  invalid,
  readField,
  readNumber,
  readOptionalString,
  readRecord,
  readString,
  type FieldReader,
} from './read-fields.ts'

/** What `toolCallEventData` builds a `tool/call`'s data from (`ToolCallEventData`, where an absent field may also be `undefined`). */
export interface ToolCallEventFields {
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly modelCallId?: string | undefined
  readonly name: string
  readonly arguments: string
  readonly parentCallId?: string | undefined
  readonly mode?: 'parallel' | 'exclusive' | undefined
  readonly repaired?: { readonly name: string; readonly arguments: string; readonly by: string } | undefined
  readonly replayArguments?: string | undefined
  readonly idempotencyKey?: string | undefined
}

const READER: FieldReader = { where: 'toolCallEventData(fields)' }
const MODES: ReadonlySet<unknown> = new Set(['parallel', 'exclusive'])

/**
 * The `data` of a `tool/call` event (T28), built and frozen by the session package itself (T58):
 * `append('tool/call', data, …)` of any session of this package copy keeps it by reference, without
 * walking, copying or freezing it again. Only the documented fields are read (each once, checked
 * for its type); other keys of `fields` are not. Field order is the file format's: `turn`, `step`,
 * `callId`, `modelCallId`, `name`, `arguments`, `parentCallId`, `mode`, `repaired`,
 * `replayArguments`, `idempotencyKey`. Throws `SessionError` `INVALID_ARGUMENT` (or `NOT_JSON` for a
 * number JSON cannot hold) naming the field.
 *
 * @example
 * const data = toolCallEventData({ turn: 1, step: 1, callId: 'c1', name: 'ls', arguments: '{}' })
 * session.append('tool/call', data, { sourceEventSeqs: [messageSeq] })
 */
export function toolCallEventData(fields: ToolCallEventFields): ToolCallEventData {
  const at = 'fields'
  const record = readRecord(READER, fields, at)
  const data: Record<string, unknown> = {
    turn: readNumber(READER, record, 'turn', at),
    step: readNumber(READER, record, 'step', at),
    callId: readString(READER, record, 'callId', at),
  }
  const modelCallId = readOptionalString(READER, record, 'modelCallId', at)
  if (modelCallId !== undefined) data.modelCallId = modelCallId
  data.name = readString(READER, record, 'name', at)
  data.arguments = readString(READER, record, 'arguments', at)
  const parentCallId = readOptionalString(READER, record, 'parentCallId', at)
  if (parentCallId !== undefined) data.parentCallId = parentCallId
  const mode = readField(READER, record, 'mode', at)
  if (mode !== undefined) {
    if (!MODES.has(mode)) throw invalid(READER, `fields.mode must be "parallel" or "exclusive"`)
    data.mode = mode
  }
  const repaired = readField(READER, record, 'repaired', at)
  if (repaired !== undefined) {
    const fix = readRecord(READER, repaired, 'fields.repaired')
    data.repaired = Object.freeze({
      name: readString(READER, fix, 'name', 'fields.repaired'),
      arguments: readString(READER, fix, 'arguments', 'fields.repaired'),
      by: readString(READER, fix, 'by', 'fields.repaired'),
    })
  }
  const replayArguments = readOptionalString(READER, record, 'replayArguments', at)
  if (replayArguments !== undefined) data.replayArguments = replayArguments
  const idempotencyKey = readOptionalString(READER, record, 'idempotencyKey', at)
  if (idempotencyKey !== undefined) data.idempotencyKey = idempotencyKey
  return freezeProven(data) as unknown as ToolCallEventData
}
