import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { ApprovalDecision, ToolExecutionFailure } from '../types.ts'
import { toolMessages } from '../messages.ts'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { failure } from './results.ts'
import type { RunState } from './run-state.ts'
import { argumentsKey, findGrant, readGrantScope, recordGrant, type ReadScope } from './session-grants.ts'
import { raceRun } from './signals.ts'

/**
 * docs/spec.md §5 step 4: an `ask` goes to `ctx.approval` before the guards. Every way of not getting a yes
 * (no service, rejection, cancellation, an unavailable channel, a failing or hanging service) is a
 * denial with its own `error.info.name`. Returns undefined when the call may proceed.
 */
export async function resolveApproval(
  run: RunState,
  tool: RegisteredTool,
  reason: string | undefined,
  json: JsonObject,
): Promise<ToolExecutionFailure | undefined> {
  const { state, toolName, call } = run
  let cachedKey: string | undefined
  const key = (): string => (cachedKey ??= argumentsKey(json))
  if (findGrant(state, tool, call, key)) return undefined
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
  let type: unknown
  let detail: unknown
  let scope: ReadScope | undefined
  try {
    type = (settled.value as { type?: unknown } | null)?.type
    detail =
      type === 'rejected'
        ? (settled.value as { feedback?: unknown }).feedback
        : type === 'unavailable'
          ? (settled.value as { reason?: unknown }).reason
          : undefined
    if (type === 'allowed-for-session') {
      scope = readGrantScope((settled.value as { scope?: unknown }).scope)
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
    default:
      return failure('DENIED', toolMessages.approvalInvalid(toolName), { name: 'ApprovalFailed' })
  }
}
