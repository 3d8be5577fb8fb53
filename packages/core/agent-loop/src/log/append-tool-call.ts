import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  appendOptionsCiting,
  toolCallEventData,
  type AnySession,
  type AsyncSession,
  type Session,
  type ToolCallEventData,
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
  const data = toolCallDataOf(turn, step, block, mode, modelCallId, fix, idempotencyKey)
  const recorded =
    messageSeq === undefined
      ? session.append('tool/call', data)
      : session.append('tool/call', data, appendOptionsCiting(messageSeq))
  return andThen(recorded, seqOf)
}

/**
 * The `tool/call` data `appendToolCall` records, built and frozen by the session package (T58: the
 * session keeps it without walking it again). Positional, not an options object: a step records
 * every call through it.
 */
export function toolCallDataOf(
  turn: number,
  step: number,
  block: ToolCallBlock,
  mode: ExecutionMode | undefined,
  modelCallId: string | undefined,
  fix: CallFix | undefined,
  idempotencyKey: string | undefined,
): ToolCallEventData {
  return toolCallEventData({
    turn,
    step,
    callId: block.id,
    modelCallId: modelCallId === block.id ? undefined : modelCallId,
    name: block.name,
    arguments: block.arguments,
    mode,
    repaired: fix?.kind === 'repaired' ? fix : undefined,
    replayArguments: fix?.kind === 'replay' ? fix.arguments : undefined,
    idempotencyKey,
  })
}
