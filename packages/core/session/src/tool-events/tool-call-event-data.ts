import type { ToolCallEventData } from '../types.ts'
import { freezeProven } from './proven-data.ts'
import {
  checkNumber,
  checkRecord,
  checkString,
  invalid,
  readFailed,
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
  const record = checkRecord(READER, fields, 'fields') as unknown as ToolCallEventFields
  // Each field read once, in the file order; `at` names the one whose getter threw.
  let at = 'fields.turn'
  let turn, step, callId, modelCallId, name, args, parentCallId, mode, repaired, replayArguments, key: unknown
  try {
    turn = record.turn
    at = 'fields.step'
    step = record.step
    at = 'fields.callId'
    callId = record.callId
    at = 'fields.modelCallId'
    modelCallId = record.modelCallId
    at = 'fields.name'
    name = record.name
    at = 'fields.arguments'
    args = record.arguments
    at = 'fields.parentCallId'
    parentCallId = record.parentCallId
    at = 'fields.mode'
    mode = record.mode
    at = 'fields.repaired'
    repaired = record.repaired
    at = 'fields.replayArguments'
    replayArguments = record.replayArguments
    at = 'fields.idempotencyKey'
    key = record.idempotencyKey
  } catch (error) {
    throw readFailed(READER, at, error)
  }
  // Checked in the file order (the first bad field is the one named), then built: one literal for
  // each shape a step records (each key added later is a map transition and a store of its own).
  const turnValue = checkNumber(READER, turn, 'fields.turn')
  const stepValue = checkNumber(READER, step, 'fields.step')
  const id = checkString(READER, callId, 'fields.callId')
  const modelId =
    modelCallId === undefined ? undefined : checkString(READER, modelCallId, 'fields.modelCallId')
  const toolName = checkString(READER, name, 'fields.name')
  const text = checkString(READER, args, 'fields.arguments')
  const parent =
    parentCallId === undefined ? undefined : checkString(READER, parentCallId, 'fields.parentCallId')
  if (mode !== undefined && mode !== 'parallel' && mode !== 'exclusive') {
    throw invalid(READER, 'fields.mode must be "parallel" or "exclusive"')
  }
  const repair = repaired === undefined ? undefined : copyRepair(repaired)
  const replay =
    replayArguments === undefined ? undefined : checkString(READER, replayArguments, 'fields.replayArguments')
  const idempotencyKey = key === undefined ? undefined : checkString(READER, key, 'fields.idempotencyKey')
  if (modelId === undefined && parent === undefined && repair === undefined && replay === undefined) {
    const data = stepCallData(turnValue, stepValue, id, toolName, text, mode, idempotencyKey)
    return freezeProven(data, 'tool/call') as unknown as ToolCallEventData
  }
  const data: Record<string, unknown> = { turn: turnValue, step: stepValue, callId: id }
  if (modelId !== undefined) data.modelCallId = modelId
  data.name = toolName
  data.arguments = text
  if (parent !== undefined) data.parentCallId = parent
  if (mode !== undefined) data.mode = mode
  if (repair !== undefined) data.repaired = repair
  if (replay !== undefined) data.replayArguments = replay
  if (idempotencyKey !== undefined) data.idempotencyKey = idempotencyKey
  return freezeProven(data, 'tool/call') as unknown as ToolCallEventData
}

/** The data of a call a step records (no model id, parent, repair or replay): one literal per shape. */
function stepCallData(
  turn: number,
  step: number,
  callId: string,
  name: string,
  args: string,
  mode: 'parallel' | 'exclusive' | undefined,
  idempotencyKey: string | undefined,
): object {
  if (idempotencyKey === undefined) {
    return mode === undefined
      ? { turn, step, callId, name, arguments: args }
      : { turn, step, callId, name, arguments: args, mode }
  }
  return mode === undefined
    ? { turn, step, callId, name, arguments: args, idempotencyKey }
    : { turn, step, callId, name, arguments: args, mode, idempotencyKey }
}

function copyRepair(value: unknown): { name: string; arguments: string; by: string } {
  const at = 'fields.repaired'
  const fix = checkRecord(READER, value, at)
  let field = 'name'
  let name, args, by: unknown
  try {
    name = fix.name
    field = 'arguments'
    args = fix.arguments
    field = 'by'
    by = fix.by
  } catch (error) {
    throw readFailed(READER, `${at}.${field}`, error)
  }
  return Object.freeze({
    name: checkString(READER, name, `${at}.name`),
    arguments: checkString(READER, args, `${at}.arguments`),
    by: checkString(READER, by, `${at}.by`),
  })
}
