import type { Logger } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import type { ToolRuntime } from '@deepseek-ai/dsh-tools'
import {
  createCallIdAllocator,
  type CallIdAllocator,
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

/** What `createCallIntake` is given. */
export interface CallIntakeOptions {
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
}

/**
 * The intake as a class: `add` runs once per call, and as a method it is made once, not per step
 * (a closure made per step loses its optimized code whenever a full collection finds no step
 * alive: the Code Mode order effect, bench/README).
 */
class StepCallIntake implements CallIntake {
  private readonly options: CallIntakeOptions
  private readonly callIds: CallIdAllocator
  /** Calls added but still waiting for their repair (or for one before them). */
  private pendingRepairs = 0
  /**
   * Calls waiting for a repair, and every call after them (model order): an asynchronous repair
   * holds the later calls back rather than letting them overtake it. Undefined while none waits.
   */
  private repairing: Promise<void> | undefined = undefined

  constructor(options: CallIntakeOptions) {
    this.options = options
    this.callIds = createCallIdAllocator(options.session, options.stepIds)
  }

  private afterRepairs(then: () => void): void {
    const { logger, where } = this.options
    this.repairing = (this.repairing ?? Promise.resolve()).then(then).then(undefined, (error: unknown) => {
      logger.error(`${where}: a call could not be handed to the batch after a repair`, { error })
    })
  }

  /**
   * Hands `block` over once the repairs before it (and its own, for a `problem`) are done. A method
   * of its own: the closure in `add` would make every call allocate a context for its variables.
   */
  private enqueueAfterRepairs(block: RecordedCallBlock, problem: ToolCallProblem | undefined): void {
    const { tools, repair, logger, where, enqueue } = this.options
    this.pendingRepairs++
    this.afterRepairs(async () => {
      const fix =
        problem === undefined
          ? undefined
          : await repairStepCall({ tools, block, problem, repair: repair!, logger, where })
      this.pendingRepairs--
      enqueue(block, fix)
    })
  }

  add(model: ToolCallBlock): void {
    const { options, callIds } = this
    const { approvals, repair } = options
    const index = options.handedOver() + (this.repairing === undefined ? 0 : this.pendingRepairs)
    const firstCallId = approvals?.firstCallId
    const block =
      index === 0 && firstCallId !== undefined ? callIds.recorded(model, firstCallId) : callIds.assign(model)
    if (index === 0 && approvals?.firstCallSeq !== undefined) {
      // a paused step's first call is in the log already: it runs as it was recorded then
      options.enqueue(block, recordedFix(options.session, approvals.firstCallSeq))
      return
    }
    const problem = repair === undefined ? undefined : checkCall(options.tools, block, repair)
    if (problem === undefined && this.repairing === undefined) return options.enqueue(block, undefined)
    this.enqueueAfterRepairs(block, problem)
  }

  close(): void {
    const { closeBatch } = this.options
    if (this.repairing === undefined) closeBatch()
    else this.afterRepairs(closeBatch)
  }
}

export function createCallIntake(options: CallIntakeOptions): CallIntake {
  return new StepCallIntake(options)
}
