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

/** What `createApprovalPause` is given. */
export interface ApprovalPauseOptions {
  readonly approvals: StepApprovals | undefined
  readonly ledger: ToolCallLedger
  readonly calls: StepCalls
  readonly turn: number
  readonly step: number
  readonly where: string
}

/** A class, its methods made once (`committed` runs per call): see `StepLedger` (tool-call-ledger.ts). */
class StepApprovalPause implements ApprovalPause {
  private readonly options: ApprovalPauseOptions
  private readonly accepted: string[] = []
  private concludes = false
  private pausedAt: PendingApproval | undefined = undefined

  constructor(options: ApprovalPauseOptions) {
    this.options = options
  }

  committed(result: ToolExecutionResult): void {
    if (this.options.approvals === undefined) return
    const contexts = result.additionalContexts
    if (contexts !== undefined) this.accepted.push(...contexts)
    if (!result.isError && result.concludesTurn === true) this.concludes = true
  }

  suspend(index: number, reason: string | undefined): void | Promise<void> {
    const { approvals, ledger, calls, turn, step, where } = this.options
    if (approvals === undefined) throw new Error(`${where}: a call was suspended without durable approvals`)
    const extra = {
      reason,
      contexts: [...approvals.carried.contexts, ...this.accepted],
      concludesTurn: approvals.carried.concludesTurn || this.concludes,
    }
    const done = (requestSeq: number): void => {
      const { block, callSeq } = calls.list[index]!
      const paused: PendingApproval = Object.freeze({
        turn,
        step,
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
        reason,
        requestSeq,
        callSeq: callSeq!,
      })
      this.pausedAt = paused
      approvals.onRequested(paused, index)
    }
    const seq = ledger.recordApprovalRequest(index, extra)
    return typeof seq === 'number' ? done(seq) : seq.then(done)
  }

  paused(): PendingApproval | undefined {
    return this.pausedAt
  }
}

export function createApprovalPause(options: ApprovalPauseOptions): ApprovalPause {
  return new StepApprovalPause(options)
}
