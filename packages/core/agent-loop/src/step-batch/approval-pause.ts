import type { PendingApproval } from '@deepseek-ai/dsh-session'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import type { ToolCallLedger } from './tool-call-ledger.ts'
import type { StepCalls } from './step-calls.ts'
import type { StepApprovals } from './step-batch-types.ts'

/**
 * Durable approvals within one step: what the committed calls deferred (for the request that
 * pauses the step after them), and the pause itself, recorded as `approval/request` once every
 * earlier call is answered and the call's own `tool/call` is durable (the ledger waits for both).
 */
export interface ApprovalPause {
  /** Call `index` committed `result`: its deferred contexts and `concludesTurn` go with a later request. */
  committed(result: ToolExecutionResult): void
  /** The batch's `onSuspend`: records the request; the step is paused once it is recorded. */
  suspend(index: number, reason: string | undefined): void | Promise<void>
  /** The approval the step paused at, once recorded. */
  paused(): PendingApproval | undefined
}

export function createApprovalPause(options: {
  readonly approvals: StepApprovals | undefined
  readonly ledger: ToolCallLedger
  readonly calls: StepCalls
  readonly turn: number
  readonly step: number
  readonly where: string
}): ApprovalPause {
  const { approvals, ledger, calls, turn, step, where } = options
  const accepted: string[] = []
  let concludes = false
  let paused: PendingApproval | undefined
  return {
    committed(result) {
      if (approvals === undefined) return
      const contexts = result.additionalContexts
      if (contexts !== undefined) accepted.push(...contexts)
      if (!result.isError && result.concludesTurn === true) concludes = true
    },
    suspend(index, reason) {
      if (approvals === undefined) throw new Error(`${where}: a call was suspended without durable approvals`)
      const extra = {
        reason,
        contexts: [...approvals.carried.contexts, ...accepted],
        concludesTurn: approvals.carried.concludesTurn || concludes,
      }
      const done = (requestSeq: number): void => {
        const { block, callSeq } = calls.list[index]!
        paused = Object.freeze({
          turn,
          step,
          callId: block.id,
          name: block.name,
          arguments: block.arguments,
          reason,
          requestSeq,
          callSeq: callSeq!,
        })
        approvals.onRequested(paused, index)
      }
      const seq = ledger.recordApprovalRequest(index, extra)
      return typeof seq === 'number' ? done(seq) : seq.then(done)
    },
    paused: () => paused,
  }
}
