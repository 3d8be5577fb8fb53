import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type {
  ApprovalAnswer,
  ApprovalDecision,
  ToolCallApproval,
  ToolExecutionFailure,
} from '../contract/types.ts'
import { toolMessages } from '../contract/messages.ts'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { failure } from '../contract/results.ts'
import type { RunState } from './run-state.ts'
import { argumentsKey, findGrant, readGrantScope, recordGrant, type ReadScope } from './session-grants.ts'
import { raceRun } from './signals.ts'

/** `resolveApproval`'s answer when the approver left the request pending and the call may wait. */
export const SUSPEND = 'suspend'

/** The decision a recorded answer stands for (`reject` never gets here: it ends the call first). */
function decisionOf(answer: ApprovalAnswer): ApprovalDecision {
  switch (answer.answer) {
    case 'once':
      return { type: 'allowed-once' }
    case 'session':
      return { type: 'allowed-for-session', scope: answer.scope ?? 'arguments' }
    case 'reject':
      return { type: 'rejected', ...(answer.feedback === undefined ? {} : { feedback: answer.feedback }) }
    default: {
      const never: never = answer
      return never
    }
  }
}

/** A `reject` answer: the call's one result, before any policy runs. */
export function rejectedByAnswer(toolName: string, answer: ApprovalAnswer): ToolExecutionFailure | undefined {
  if (answer.answer !== 'reject') return undefined
  return failure('DENIED', toolMessages.approvalRejected(toolName, answer.feedback), {
    name: 'ApprovalRejected',
  })
}

/**
 * docs/spec.md §5 step 4: an `ask` goes to `ctx.approval` before the guards. Every way of not getting a yes
 * (no service, rejection, cancellation, an unavailable channel, a failing or hanging service) is a
 * denial with its own `error.info.name`. Returns undefined when the call may proceed, and `SUSPEND`
 * when the approver answered `pending` for a call whose driver can wait (`approval: suspendable`).
 * A recorded answer (`approval: answered`) stands in for the service.
 */
export async function resolveApproval(
  run: RunState,
  tool: RegisteredTool,
  reason: string | undefined,
  json: JsonObject,
  approval: ToolCallApproval | undefined,
): Promise<ToolExecutionFailure | undefined | typeof SUSPEND> {
  const { state, toolName, call } = run
  let cachedKey: string | undefined
  const key = (): string => (cachedKey ??= argumentsKey(json))
  if (findGrant(state, tool, call, key)) return undefined
  if (approval?.kind === 'answered')
    return readDecision(run, tool, decisionOf(approval.answer), key, approval)
  const service = state.ctx.approval
  if (service === undefined) {
    return failure('DENIED', toolMessages.noApprovalService(toolName, reason), { name: 'NoApprovalService' })
  }
  let pending: Promise<ApprovalDecision>
  try {
    pending = Promise.resolve(
      service.request({
        toolName,
        callId: run.callId,
        reason,
        args: call.args,
        signal: run.signal,
        agent: state.ctx.scope,
      }),
    )
  } catch (error) {
    pending = Promise.reject(error)
  }
  const settled = await raceRun(run, pending, false)
  if (settled.kind === 'aborted') {
    return failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(toolName))
  }
  if (settled.kind === 'error') {
    return failure('DENIED', toolMessages.approvalFailed(toolName, settled.error), { name: 'ApprovalFailed' })
  }
  return readDecision(run, tool, settled.value, key, approval)
}

/** Reads an approver's (untrusted) decision once and turns it into the call's next move. */
function readDecision(
  run: RunState,
  tool: RegisteredTool,
  value: unknown,
  key: () => string,
  approval: ToolCallApproval | undefined,
): ToolExecutionFailure | undefined | typeof SUSPEND {
  const { state, toolName } = run
  let type: unknown
  let detail: unknown
  let scope: ReadScope | undefined
  try {
    type = (value as { type?: unknown } | null)?.type
    detail =
      type === 'rejected'
        ? (value as { feedback?: unknown }).feedback
        : type === 'unavailable'
          ? (value as { reason?: unknown }).reason
          : undefined
    if (type === 'allowed-for-session') {
      scope = readGrantScope((value as { scope?: unknown }).scope)
      if (scope === undefined) type = undefined
    }
  } catch {
    type = undefined
  }
  const text = typeof detail === 'string' ? detail : undefined
  switch (type) {
    case 'allowed-once':
      return undefined
    case 'allowed-for-session':
      recordGrant(state, tool, scope!, key)
      return undefined
    case 'rejected':
      return failure('DENIED', toolMessages.approvalRejected(toolName, text), { name: 'ApprovalRejected' })
    case 'cancelled':
      return failure('DENIED', toolMessages.approvalCancelled(toolName), { name: 'ApprovalCancelled' })
    case 'unavailable':
      return failure('DENIED', toolMessages.approvalUnavailable(toolName, text), {
        name: 'ApprovalUnavailable',
      })
    case 'pending':
      // a caller's abort that came meanwhile wins: nothing is left waiting on a cancelled call
      if (approval?.kind === 'suspendable' && run.cause === undefined) return SUSPEND
      if (run.cause !== undefined)
        return failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(toolName))
      return failure('DENIED', toolMessages.approvalPending(toolName), { name: 'ApprovalPending' })
    default:
      return failure('DENIED', toolMessages.approvalInvalid(toolName), { name: 'ApprovalFailed' })
  }
}
