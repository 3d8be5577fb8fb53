import type { Logger } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import type { ToolRuntime } from '@deepseek-ai/dsh-tools'
import {
  createCallIdAllocator,
  type RecordedCallBlock,
  type StepIds,
} from '../log/create-call-id-allocator.ts'
import type { CallFix, ToolCallProblem } from '../base/context-types.ts'
import { checkCall, repairStepCall, type StepRepair } from './repair-step-call.ts'
import { recordedFix } from './recorded-fix.ts'
import type { StepApprovals } from './step-batch-types.ts'

/**
 * How the model's calls enter a step's batch, in model order: each gets an id unique in the session
 * (`createCallIdAllocator`), a broken one is offered to the repair hook first (T54), and an
 * asynchronous repair holds the later calls (and the end of intake) back rather than letting them
 * overtake it. A paused step's first call runs as it was recorded.
 */
export interface CallIntake {
  add(model: ToolCallBlock): void
  /** No more calls: `closeBatch` runs once every pending repair has handed its call over. */
  close(): void
}

export function createCallIntake(options: {
  readonly session: AnySession
  readonly tools: ToolRuntime
  readonly approvals: StepApprovals | undefined
  /** Broken calls are offered to the repair hook before they run (T54, T55); without it nothing is checked. */
  readonly repair: StepRepair | undefined
  /** What the caller knows of the calls' ids (`StepIds`). */
  readonly stepIds: StepIds
  readonly logger: Logger
  readonly where: string
  /** How many calls were handed to the batch so far. */
  readonly handedOver: () => number
  /** Hands one call (as recorded, with what the loop did to it) to the batch. */
  readonly enqueue: (block: RecordedCallBlock, fix: CallFix | undefined) => void
  readonly closeBatch: () => void
}): CallIntake {
  const { session, tools, approvals, repair, logger, where, handedOver, enqueue, closeBatch } = options
  const callIds = createCallIdAllocator(session, options.stepIds)
  /** Calls added but still waiting for their repair (or for one before them). */
  let pendingRepairs = 0
  /**
   * Calls waiting for a repair, and every call after them (model order): an asynchronous repair
   * holds the later calls back rather than letting them overtake it. Undefined while none waits.
   */
  let repairing: Promise<void> | undefined
  const afterRepairs = (then: () => void): void => {
    repairing = (repairing ?? Promise.resolve()).then(then).then(undefined, (error: unknown) => {
      logger.error(`${where}: a call could not be handed to the batch after a repair`, { error })
    })
  }

  /**
   * Hands `block` over once the repairs before it (and its own, for a `problem`) are done. A function
   * of its own: the closure in `add` would make every call allocate a context for its variables.
   */
  const enqueueAfterRepairs = (block: RecordedCallBlock, problem: ToolCallProblem | undefined): void => {
    pendingRepairs++
    afterRepairs(async () => {
      const fix =
        problem === undefined
          ? undefined
          : await repairStepCall({ tools, block, problem, repair: repair!, logger, where })
      pendingRepairs--
      enqueue(block, fix)
    })
  }

  return {
    add(model) {
      const index = handedOver() + (repairing === undefined ? 0 : pendingRepairs)
      const firstCallId = approvals?.firstCallId
      const block =
        index === 0 && firstCallId !== undefined
          ? callIds.recorded(model, firstCallId)
          : callIds.assign(model)
      if (index === 0 && approvals?.firstCallSeq !== undefined) {
        // a paused step's first call is in the log already: it runs as it was recorded then
        enqueue(block, recordedFix(session, approvals.firstCallSeq))
        return
      }
      const problem = repair === undefined ? undefined : checkCall(tools, block, repair)
      if (problem === undefined && repairing === undefined) return enqueue(block, undefined)
      enqueueAfterRepairs(block, problem)
    },
    close: () => (repairing === undefined ? closeBatch() : afterRepairs(closeBatch)),
  }
}
