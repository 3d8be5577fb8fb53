import { describeValue, toolCallsOf } from '@deepseek-ai/dsh-llm'
import {
  pendingApprovals,
  type ApprovalAnswerEventData,
  type PendingApproval,
  type AnySession,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { describeThrown, readApprovalAnswer, type ApprovalAnswer } from '@deepseek-ai/dsh-tools'
import type { PausedStep } from '../step/continue-paused-step.ts'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import { isPromiseLike } from '../base/maybe-async.ts'
import type { TurnRecord } from '../log/read-last-turn.ts'
import { resultCallId } from '../log/session-records.ts'

/** What `resume` is told about a pending approval: the call it answers and the answer. */
export type ApprovalReply = { readonly callId: string } & ApprovalAnswer

const q = (value: string): string => JSON.stringify(value)

/**
 * A checked copy of `options.approval` (each field read once): `callId` and the answer's own fields,
 * nothing else (a field the answer does not have is refused, T28).
 */
export function readApprovalReply(where: string, value: unknown): ApprovalReply {
  if (typeof value !== 'object' || value === null)
    throw invalidArgument(
      `${where}: options.approval must be { callId, answer }, got ${describeValue(value)}`,
    )
  let callId: unknown
  let fields: Record<string, unknown>
  try {
    ;({ callId, ...fields } = value as Record<string, unknown>)
  } catch (error) {
    throw invalidArgument(`${where}: reading options.approval threw: ${describeThrown(error)}`)
  }
  if (typeof callId !== 'string' || callId === '')
    throw invalidArgument(
      `${where}: options.approval.callId must be a non-empty string, got ${describeValue(callId)}`,
    )
  let answer: ApprovalAnswer
  try {
    answer = readApprovalAnswer(where, 'options.approval', fields)
  } catch (error) {
    throw invalidArgument(error instanceof Error ? error.message : String(error))
  }
  return Object.freeze({ ...answer, callId })
}

/** Why `callId` cannot be answered: it was answered, it has its result, or no call has that id. */
function notPending(
  where: string,
  events: readonly SessionEvent[],
  callId: string,
  pending: readonly PendingApproval[],
): AgentLoopError {
  let why = 'no call in this session has that id'
  for (const event of events) {
    const data = event.data as { callId?: unknown } | null
    if (event.type === 'approval/answer' && data?.callId === callId)
      why = `its approval was already answered (seq ${event.seq})`
    else if (event.type === 'tool/call' && data?.callId === callId && why.startsWith('no call'))
      why = 'its approval was never requested'
    else if (event.type === 'tool/result' && resultCallId(event) === callId)
      why = `it already has its result (seq ${event.seq})`
  }
  const waiting =
    pending.length === 0
      ? 'no approval is pending in this session'
      : `pending: ${pending.map((p) => `${q(p.callId)} (${p.name})`).join(', ')}`
  return new AgentLoopError({
    code: 'APPROVAL_NOT_PENDING',
    message: `${where}: options.approval names call ${q(callId)}, whose approval is not pending: ${why}; ${waiting}`,
  })
}

/**
 * Resume with an answer: checks that it names the pending approval, records `approval/answer`
 * citing the request, and says where the paused step goes on (once the answer is recorded, for an
 * asynchronous session). Throws `APPROVAL_NOT_PENDING`, and
 * records nothing, when the answer names any other call.
 */
export function answerPendingApproval(options: {
  readonly where: string
  readonly session: AnySession
  readonly events: readonly SessionEvent[]
  readonly pending: readonly PendingApproval[]
  readonly last: TurnRecord | undefined
  readonly reply: ApprovalReply
}): PausedStep | Promise<PausedStep> {
  const { where, session, events, pending, last, reply } = options
  const approval = pending.find((p) => p.callId === reply.callId)
  if (approval === undefined) throw notPending(where, events, reply.callId, pending)
  const message = last?.lastAssistant
  const calls = message === undefined ? [] : toolCallsOf(message)
  // the call's block holds the model's id, which the loop may have recorded under another
  const callData = events.find((event) => event.seq === approval.callSeq)?.data as
    { modelCallId?: unknown } | undefined
  const blockId = typeof callData?.modelCallId === 'string' ? callData.modelCallId : approval.callId
  const at = calls.findIndex((block) => block.id === blockId)
  if (
    last === undefined ||
    last.turn !== approval.turn ||
    last.steps !== approval.step ||
    at < 0 ||
    last.lastAssistantSeq === undefined
  )
    throw new AgentLoopError({
      code: 'INVALID_SESSION',
      kind: 'system',
      message: `${where}: the approval/request seq ${approval.requestSeq} is not in the last step of the last turn, where the loop pauses`,
    })
  const request = events.find((event) => event.seq === approval.requestSeq)?.data as
    { contexts?: unknown; concludesTurn?: unknown } | undefined
  const contexts = Array.isArray(request?.contexts)
    ? request.contexts.filter((c): c is string => typeof c === 'string')
    : []
  const { callId: _callId, ...answer } = reply
  const data: ApprovalAnswerEventData = {
    turn: approval.turn,
    step: approval.step,
    callId: approval.callId,
    ...answer,
  }
  const recorded = session.append('approval/answer', data, { sourceEventSeqs: [approval.requestSeq] })
  const paused: PausedStep = {
    step: approval.step,
    messageSeq: last.lastAssistantSeq,
    blocks: calls.slice(at),
    firstCallSeq: approval.callSeq,
    firstCallId: approval.callId,
    answer: answer as ApprovalAnswer,
    carried: { contexts, concludesTurn: request?.concludesTurn === true },
  }
  // an asynchronous session: the step goes on once the answer is durable
  return isPromiseLike(recorded) ? Promise.resolve(recorded).then(() => paused) : paused
}

export { pendingApprovals }
