import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { ApprovalAnswer, ToolCallApproval } from '@deepseek-ai/dsh-tools'
import { runRecordedCalls } from './run-recorded-calls.ts'
import { stepApprovals } from './step-approvals.ts'
import type { StepReport, StepRun } from './step-types.ts'

/** A step that paused at an approval, now answered: where it goes on. */
export interface PausedStep {
  readonly step: number
  /** Seq of the step's `assistant/message`. */
  readonly messageSeq: number
  /** The paused call, then the calls after it in the message (never started), in model order. */
  readonly blocks: readonly ToolCallBlock[]
  /** Seq of the paused call's `tool/call` (already in the log). */
  readonly firstCallSeq: number
  /** The session id the paused call was recorded under (its `callId`; the model's may differ). */
  readonly firstCallId: string
  readonly answer: ApprovalAnswer
  /** What the step's earlier calls deferred (from the approval request). */
  readonly carried: { readonly contexts: readonly string[]; readonly concludesTurn: boolean }
}

/**
 * Runs the rest of a paused step: the answered call first (its input carries the answer: a
 * rejection is its result, an approval answers the ask its policy raises again), then the calls
 * after it, which may pause the step again at their own approval. The contexts the step's earlier
 * calls deferred come first in the next step's message, then those of these calls (FIFO).
 */
export async function continuePausedStep(
  run: Pick<StepRun, 'runner' | 'turn' | 'step' | 'signal' | 'emit' | 'listening' | 'grants'>,
  paused: PausedStep,
): Promise<StepReport> {
  const approvals = stepApprovals(run, {
    carried: paused.carried,
    firstCallSeq: paused.firstCallSeq,
    firstCallId: paused.firstCallId,
  })
  const answered: ToolCallApproval = { kind: 'answered', answer: paused.answer }
  return runRecordedCalls(run, {
    messageSeq: paused.messageSeq,
    blocks: paused.blocks,
    approvals: {
      ...approvals,
      forCall: (block, index) => (index === 0 ? answered : approvals.forCall(block, index)),
    },
  })
}
