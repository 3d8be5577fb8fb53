import {
  appendCiting,
  toolResultEventData,
  type AnySession,
  type AsyncSession,
  type Session,
  type ToolCallRecordedTimings,
  type ToolResultEventData,
  type ToolResultEventFields,
} from '@deepseek-ai/dsh-session'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { andThen, seqOf, type MaybePromise } from '../base/maybe-async.ts'

/** The options of `appendToolResult`, for a session of type `S`. */
export interface AppendToolResultOptions<S extends AnySession = AnySession> {
  readonly session: S
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly callSeq: number
  readonly result: ToolExecutionResult
  readonly timings?: ToolCallRecordedTimings | undefined
}

/**
 * Records one result as `tool/result` (T28, T29): `{ turn, step, message, error?, meta? }` where
 * `message` is `createToolResultMessage({ callId, content, isError })`, plus `timings` when given
 * (how long the call queued, ran and waited to commit) and `rewrittenArguments` when policy
 * rewrote the call's arguments (T36: the JSON it ran with), appended with
 * `{ surfaceOp: 'append', sourceEventSeqs: [callSeq] }` so it cites its `tool/call`.
 * Returns the event's seq (a promise of it for an asynchronous session, resolved once the event is
 * durable). Throws or rejects with whatever the session does; nothing is recorded then.
 */
export function appendToolResult(options: AppendToolResultOptions<Session>): number
export function appendToolResult(options: AppendToolResultOptions<AsyncSession>): Promise<number>
export function appendToolResult(options: AppendToolResultOptions): MaybePromise<number>
export function appendToolResult(options: AppendToolResultOptions): MaybePromise<number> {
  const { session, turn, step, callId, callSeq, result, timings } = options
  const data = toolResultDataOf(toolResultFields(), turn, step, callId, result, timings)
  // `appendCiting`: the options citing the call, without an options object per result
  const recorded = appendCiting(session, 'tool/result', data, callSeq, true)
  return andThen(recorded, seqOf)
}

/**
 * The fields `toolResultEventData` reads, every key present and writable: `toolResultDataOf` fills
 * one in place. The builder reads each field once and keeps nothing of the object, so the results
 * of one step share one.
 */
export type ToolResultFields = { -readonly [K in keyof ToolResultEventFields]-?: ToolResultEventFields[K] }

/** A fresh `ToolResultFields` (one per step, or per `appendToolResult`). */
export function toolResultFields(): ToolResultFields {
  return {
    turn: 0,
    step: 0,
    callId: '',
    content: '',
    isError: false,
    error: undefined,
    meta: undefined,
    timings: undefined,
    rewrittenArguments: undefined,
  }
}

/**
 * The `tool/result` data `appendToolResult` records, built and frozen by the session package
 * (T58), from `fields` filled in place: the message is `createToolResultMessage`'s, made from the
 * result's checked strings, and the session keeps the data without walking it again. Positional,
 * not an options object: a step records every result through it.
 */
export function toolResultDataOf(
  fields: ToolResultFields,
  turn: number,
  step: number,
  callId: string,
  result: ToolExecutionResult,
  timings: ToolCallRecordedTimings | undefined,
): ToolResultEventData {
  fields.turn = turn
  fields.step = step
  fields.callId = callId
  fields.content = result.content
  fields.isError = result.isError
  fields.error = result.isError ? result.error.info : undefined
  fields.meta = result.meta
  fields.timings = timings
  // T36: what the call ran with when policy rewrote the model's arguments (its tool/call keeps those)
  fields.rewrittenArguments = result.rewrittenArguments
  return toolResultEventData(fields)
}
