import { textOf, toolCallsOf } from '@deepseek-ai/dsh-llm'
import { pendingApprovals, type AnySession } from '@deepseek-ai/dsh-session'
import type { ToolRuntime, ToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import { completeResumableCalls } from './complete-resumable-calls.ts'
import { answerInterruptedCalls } from '../log/answer-interrupted-calls.ts'
import { answerPendingApproval, type ApprovalReply } from './answer-pending-approval.ts'
import { answerPendingElicitation } from './answer-pending-elicitation.ts'
import type { ElicitationReply } from '../base/elicitation-types.ts'
import { readLastTurn } from '../log/read-last-turn.ts'
import { commitSession } from '../log/commit-session.ts'
import type { TurnStart } from './run-turn.ts'
import { ZERO_USAGE } from '../log/session-records.ts'
import type { TurnResult } from '../base/types.ts'

export type ResumePlan =
  | { readonly kind: 'empty' }
  | { readonly kind: 'ended'; readonly result: TurnResult }
  /** Durable approvals (or T66 elicitations): the session waits for an answer and none was given. */
  | { readonly kind: 'paused'; readonly result: TurnResult }
  | { readonly kind: 'continue'; readonly start: TurnStart }

/**
 * Repairs the session (every unanswered call gets `INTERRUPTED`) and says what resuming means: nothing
 * (no turn yet), the last turn's result (it ended), or where its unfinished turn continues. A session
 * paused at a pending approval is not repaired: without `reply` it stays paused (its result says on
 * what); with a reply naming the pending call, the answer is recorded and the paused step continues;
 * a reply naming any other call is refused (`APPROVAL_NOT_PENDING`). A session whose log holds a
 * question a call put to a person and never got answered (T66) is paused the same way, first:
 * `elicitation` answers it, and the repair below then runs the call again where that is safe.
 */
export async function planResume(
  session: AnySession,
  scheduler: ToolRuntimeScheduler,
  reply: ApprovalReply | undefined,
  where: string,
  tools?: ToolRuntime,
  elicitation?: ElicitationReply,
): Promise<ResumePlan> {
  // T66: a question a call put to a person, left unanswered, keeps the session paused
  const asked = await answerPendingElicitation({ where, session, reply: elicitation, tools })
  if (asked !== undefined) return { kind: 'paused', result: asked }
  const before = session.events()
  const pending = pendingApprovals(before)
  if (pending.length > 0 || reply !== undefined) {
    const last = readLastTurn(before)
    if (reply === undefined) {
      const message = last?.lastAssistant
      const result: TurnResult = Object.freeze({
        turn: last?.turn ?? pending[0]!.turn,
        reason: 'paused',
        steps: last?.steps ?? 0,
        message,
        text: message === undefined ? '' : textOf(message.content),
        usage: last?.usage ?? ZERO_USAGE,
        pendingApproval: pending[0]!,
      })
      return { kind: 'paused', result }
    }
    const paused = await answerPendingApproval({ where, session, events: before, pending, last, reply })
    // A commit point (T59): the person's answer is durable before the call it answers runs.
    commitSession(session)
    return {
      kind: 'continue',
      start: {
        turn: last!.turn,
        resumed: true,
        steps: last!.steps,
        lastMessage: last!.lastAssistant,
        usage: last!.usage,
        paused,
      },
    }
  }
  // T50/T51: calls that never began, and idempotent ones, are run now; the rest are INTERRUPTED
  if (tools !== undefined) await completeResumableCalls({ session, tools, scheduler })
  await answerInterruptedCalls({ session, scheduler })
  // A commit point (T59): the repaired log is durable before the turn goes on or is reported.
  commitSession(session)
  const last = readLastTurn(session.events())
  if (last === undefined) return { kind: 'empty' }
  const message = last.lastAssistant
  if (last.end !== undefined) {
    const result: TurnResult = Object.freeze({
      turn: last.turn,
      reason: last.end.reason,
      steps: last.end.steps,
      ...(last.end.stoppedBy === undefined ? {} : { stoppedBy: last.end.stoppedBy }),
      message,
      text: message === undefined ? '' : textOf(message.content),
      usage: last.usage,
    })
    return { kind: 'ended', result }
  }
  // A last step without tool calls was the model's answer: the turn only lacks its turn/end.
  const answered = message !== undefined && toolCallsOf(message).length === 0
  return {
    kind: 'continue',
    start: {
      turn: last.turn,
      resumed: true,
      steps: last.steps,
      lastMessage: message,
      usage: last.usage,
      ...(answered ? { done: 'completed' as const } : {}),
    },
  }
}
