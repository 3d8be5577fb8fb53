import { describeThrown, type ToolBatchOutcome } from '@deepseek-ai/dsh-tools'
import type { PendingApproval } from '@deepseek-ai/dsh-session'
import { AgentLoopError } from '../base/errors.ts'
import type { AcceptContext, EagerDispatchFigures } from '../base/types.ts'
import type { StepCalls } from './step-calls.ts'
import type { StepBatchResult } from './step-batch-types.ts'

/**
 * What a finished batch means for the step: its results with deferred contexts handed to
 * `acceptContext` in model order (T27), the pause at a pending approval, or the batch's failure
 * (`UNRECORDED_RESULTS` when the session still lacks a result of a recorded call).
 */
export function stepBatchResult(options: {
  readonly outcome: ToolBatchOutcome
  readonly calls: StepCalls
  readonly eager: EagerDispatchFigures | undefined
  readonly paused: PendingApproval | undefined
  readonly where: string
  readonly acceptContext: AcceptContext
}): StepBatchResult {
  const { outcome, calls, eager, where, acceptContext } = options
  if (outcome.kind === 'failed') {
    // The batch already offered every recorded call a result (its real one, or SCHEDULER_FAILED)
    // through onCommit, in model order; what the session still lacks is reported, not retried.
    const { error } = outcome
    const unanswered = calls.unanswered()
    if (unanswered.length === 0) throw error
    throw new AgentLoopError({
      code: 'UNRECORDED_RESULTS',
      kind: 'system',
      cause: error,
      details: { unanswered },
      message:
        `${where}: the tool batch failed (${describeThrown(error)}) and the session refused the tool/result of ` +
        `${unanswered.map((u) => `"${u.callId}" (tool/call seq ${u.callSeq})`).join(', ')}; ` +
        'the log is not replayable until they are answered (resuming the session answers them with INTERRUPTED)',
    })
  }
  if (outcome.kind === 'suspended')
    return { results: [...outcome.results], concludesTurn: false, eager, paused: options.paused! }
  const { results } = outcome
  let concludesTurn = false
  const { list } = calls
  for (let index = 0; index < results.length; index++) {
    const result = results[index]!
    if (!result.isError && result.concludesTurn === true) concludesTurn = true
    // most results defer no context: no empty array per call to iterate
    const contexts = result.additionalContexts
    if (contexts === undefined) continue
    const { block } = list[index]!
    for (const text of contexts) acceptContext(text, { callId: block.id, toolName: block.name })
  }
  return { results: [...results], concludesTurn, eager }
}
