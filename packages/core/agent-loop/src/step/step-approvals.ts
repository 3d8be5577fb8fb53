import type { StepApprovals } from '../step-batch/step-batch-types.ts'
import { approvalFor } from '../log/session-grants.ts'
import type { StepRun } from './step-types.ts'

/**
 * Durable approvals for a step of the loop: every call may be suspended by a `pending` approval
 * (unless a `session` answer recorded earlier covers it), and a pause is reported as
 * `approval-requested`. `carried` and `firstCallSeq` are set for a step continued after an answer.
 */
export function stepApprovals(
  run: Pick<StepRun, 'turn' | 'step' | 'emit' | 'grants'>,
  continued?: Pick<StepApprovals, 'carried' | 'firstCallSeq' | 'firstCallId'>,
): StepApprovals {
  const { turn, step, emit, grants } = run
  return {
    forCall: (block) => approvalFor(grants, block),
    carried: continued?.carried ?? { contexts: [], concludesTurn: false },
    ...(continued?.firstCallSeq === undefined ? {} : { firstCallSeq: continued.firstCallSeq }),
    ...(continued?.firstCallId === undefined ? {} : { firstCallId: continued.firstCallId }),
    onRequested: (approval, index) =>
      emit({ type: 'approval-requested', turn, step, at: performance.now(), index, approval }),
  }
}
