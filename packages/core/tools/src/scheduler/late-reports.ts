import type { Logger } from '@deepseek-ai/dsh-context'
import type { ToolBatchHooks } from '../contract/batch-types.ts'
import type { BatchState, PendingResult } from './batch-state.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { lateOutcomeOf } from './late-outcome-of.ts'
import type { LateToolOutcome, ScheduledToolDispatch } from '../contract/scheduler-types.ts'

/** A batch's side of `onLateOutcome`: what bodies did that their calls' results do not carry (T38). */
export interface LateReports {
  /** Hands a late outcome to `onLateOutcome`, once per call. */
  report(index: number, outcome: LateToolOutcome): void
  /** A body that outlives its call's result: its outcome is reported when it settles. */
  watchBody(index: number, body: Promise<LateToolOutcome>): void
  /** A body's outcome that its call's result will not carry (recovery answered the call). */
  dropped(index: number, pending: PendingResult): void
  /**
   * Reports handed over before the batch ended whose promise is still pending. (A method: an object
   * literal that declares a getter is a dictionary-mode object in V8, slow to make and to call.)
   */
  pending(): number
}

export function createLateReports(options: {
  readonly hooks: ToolBatchHooks
  readonly state: BatchState
  readonly logger: Logger | undefined
  /** Whether the batch's outcome has settled (a later report is not waited for). */
  readonly finished: () => boolean
  /** Something changed: the driver looks again. */
  readonly drive: () => void
}): LateReports {
  return new LateReportTable(options)
}

/**
 * `LateReports` as a class: its methods are made once, not per batch as the closures of an object
 * literal would be (issue 26). Bound where they are handed out as callbacks.
 */
class LateReportTable implements LateReports {
  #pending = 0
  readonly #lateFailed: (error: unknown) => void

  constructor(private readonly options: Parameters<typeof createLateReports>[0]) {
    const { logger } = options
    this.#lateFailed = (error) => {
      logger?.error('tool batch: hooks.onLateOutcome failed; the late outcome was not recorded', { error })
    }
  }

  /**
   * Before the batch ends, the batch waits for what the hook returned (an asynchronous session
   * records it), so a failed batch settles only after the outcomes of the bodies it drained are
   * reported.
   */
  report(index: number, outcome: LateToolOutcome): void {
    const { hooks, state, finished, drive } = this.options
    let returned: unknown
    try {
      returned = hooks.onLateOutcome?.(index, state.input(index), outcome)
    } catch (error) {
      return this.#lateFailed(error)
    }
    if (!isThenable(returned)) return
    const awaited = !finished()
    if (awaited) this.#pending++
    Promise.resolve(returned)
      .then(undefined, this.#lateFailed)
      .finally(() => {
        if (!awaited) return
        this.#pending--
        drive()
      })
  }

  watchBody(index: number, body: Promise<LateToolOutcome>): void {
    const late = (outcome: LateToolOutcome): void => {
      this.options.state.bodyDone(index)
      this.report(index, outcome)
      this.options.drive()
    }
    body.then(late, () => late({ kind: 'abandoned' }))
  }

  dropped(index: number, pending: PendingResult): void {
    const outcome = lateOutcomeOf((pending as ScheduledToolDispatch).result)
    if (outcome !== undefined) this.report(index, outcome)
  }

  pending(): number {
    return this.#pending
  }
}
