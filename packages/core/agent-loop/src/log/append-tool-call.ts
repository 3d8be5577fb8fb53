import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  appendOptionsCiting,
  toolCallEventData,
  type AnySession,
  type AsyncSession,
  type Session,
  type ToolCallEventData,
  type ToolCallEventFields,
} from '@deepseek-ai/dsh-session'
import type { ExecutionMode } from '@deepseek-ai/dsh-tools'
import { andThen, seqOf, type MaybePromise } from '../base/maybe-async.ts'
import type { CallFix } from '../base/context-types.ts'

/** The options of `appendToolCall`, for a session of type `S`. */
export interface AppendToolCallOptions<S extends AnySession = AnySession> {
  readonly session: S
  readonly turn: number
  readonly step: number
  readonly block: ToolCallBlock
  readonly messageSeq?: number | undefined
  readonly mode?: ExecutionMode | undefined
  /**
   * The id the model wrote, when `block.id` is another one the call is recorded under (an id unique
   * in the session, T28): recorded as `modelCallId`, so the call is matched with its tool-call block
   * and the provider gets its own id back.
   */
  readonly modelCallId?: string | undefined
  /** What the loop did to the call before it ran (T54, T55): recorded as `repaired` or `replayArguments`. */
  readonly fix?: CallFix | undefined
  /** The call's `exec.idempotencyKey` (T49), recorded so the log says what key its body saw. */
  readonly idempotencyKey?: string | undefined
}

/**
 * Records one call as `tool/call` (T28): `{ turn, step, callId, name, arguments }`, `arguments`
 * being the raw string the model wrote, plus `mode` when given (how the scheduler runs it) and
 * `modelCallId` when the call is recorded under another id than the model's (`block.id` is then
 * the session's id). With
 * `messageSeq` (the seq of the `assistant/message` that holds the call) the event cites it:
 * `sourceEventSeqs: [messageSeq]` (T40). Returns the event's seq, which the result must cite (a
 * promise of it for an asynchronous session, resolved once the event is durable). Throws or rejects
 * with whatever the session does; nothing is recorded then.
 */
export function appendToolCall(options: AppendToolCallOptions<Session>): number
export function appendToolCall(options: AppendToolCallOptions<AsyncSession>): Promise<number>
export function appendToolCall(options: AppendToolCallOptions): MaybePromise<number>
export function appendToolCall(options: AppendToolCallOptions): MaybePromise<number> {
  const { session, turn, step, block, messageSeq, mode, modelCallId, fix, idempotencyKey } = options
  const data = toolCallDataOf(toolCallFields(), turn, step, block, mode, modelCallId, fix, idempotencyKey)
  const recorded =
    messageSeq === undefined
      ? session.append('tool/call', data)
      : session.append('tool/call', data, appendOptionsCiting(messageSeq))
  return andThen(recorded, seqOf)
}

/**
 * The fields `toolCallEventData` reads, every key present and writable: `toolCallDataOf` fills one
 * in place. The builder reads each field once and keeps nothing of the object, so the calls of one
 * step share one (a fields object per call was a tenth of what a step allocated for its log).
 */
export type ToolCallFields = { -readonly [K in keyof ToolCallEventFields]-?: ToolCallEventFields[K] }

/** A fresh `ToolCallFields` (one per step, or per `appendToolCall`). */
export function toolCallFields(): ToolCallFields {
  return {
    turn: 0,
    step: 0,
    callId: '',
    modelCallId: undefined,
    name: '',
    arguments: '',
    parentCallId: undefined,
    mode: undefined,
    repaired: undefined,
    replayArguments: undefined,
    idempotencyKey: undefined,
  }
}

/**
 * The `tool/call` data `appendToolCall` records, built and frozen by the session package (T58: the
 * session keeps it without walking it again), from `fields` filled in place. Positional, not an
 * options object: a step records every call through it.
 */
export function toolCallDataOf(
  fields: ToolCallFields,
  turn: number,
  step: number,
  block: ToolCallBlock,
  mode: ExecutionMode | undefined,
  modelCallId: string | undefined,
  fix: CallFix | undefined,
  idempotencyKey: string | undefined,
): ToolCallEventData {
  fields.turn = turn
  fields.step = step
  fields.callId = block.id
  fields.modelCallId = modelCallId === block.id ? undefined : modelCallId
  fields.name = block.name
  fields.arguments = block.arguments
  fields.mode = mode
  fields.repaired = fix?.kind === 'repaired' ? fix : undefined
  fields.replayArguments = fix?.kind === 'replay' ? fix.arguments : undefined
  fields.idempotencyKey = idempotencyKey
  return toolCallEventData(fields)
}

/**
 * The `tool/call` data of a nested call (a `run_code` program's, T33), from `fields` filled in
 * place as `toolCallDataOf` does: built and frozen by the session package, so the session keeps it
 * without walking it again.
 */
export function nestedToolCallDataOf(
  fields: ToolCallFields,
  turn: number,
  step: number,
  callId: string,
  name: string,
  args: string,
  parentCallId: string,
  mode: ExecutionMode | undefined,
  idempotencyKey: string | undefined,
): ToolCallEventData {
  fields.turn = turn
  fields.step = step
  fields.callId = callId
  fields.modelCallId = undefined
  fields.name = name
  fields.arguments = args
  fields.parentCallId = parentCallId
  fields.mode = mode
  fields.repaired = undefined
  fields.replayArguments = undefined
  fields.idempotencyKey = idempotencyKey
  return toolCallEventData(fields)
}
