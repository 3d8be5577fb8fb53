import { deepFreeze } from '@deepseek-ai/dsh-session'
import { toolMessages } from '../messages.ts'
import { failure } from '../pipeline/results.ts'
import type { ToolExecutionResult } from '../types.ts'
import type { BatchState, CommitStep } from './batch-state.ts'
import type { ToolBatchHooks } from './batch-types.ts'
import type { ToolRuntimeScheduler } from './scheduler-types.ts'

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function'

/** Calls a hook; waits for what it returns when that is a promise (an asynchronous store). */
async function call(hook: () => unknown): Promise<void> {
  const returned = hook()
  if (isThenable(returned)) await returned
}

/** The same, for recovery: the sink that failed may keep failing, and the batch's error is what counts. */
async function contained(hook: () => unknown): Promise<void> {
  try {
    await call(hook)
  } catch {
    // ignored on purpose (see above)
  }
}

/**
 * One step of a batch's commit side, in model order (T25). A normal commit runs `finalize` or
 * `finish` (the result becomes final and `tools/result` observers see it) and then `onCommit`;
 * only when the hook returned is the call committed, so a hook that failed leaves the call for
 * recovery, which offers that same result again. Recovery is the single owner of
 * `SCHEDULER_FAILED` (T13, T39): a call gets its final result if it has one, else a synthetic
 * failure, and one that never started is announced first. Throws what a normal step's hook or
 * the runtime threw; never throws in recovery.
 */
export async function runCommitStep(options: {
  readonly step: CommitStep
  readonly state: BatchState
  readonly scheduler: ToolRuntimeScheduler
  readonly hooks: ToolBatchHooks
}): Promise<void> {
  const { step, state, scheduler, hooks } = options
  const { index } = step
  const input = state.input(index)
  const commit = async (result: ToolExecutionResult): Promise<void> => {
    await call(() => hooks.onCommit?.(index, input, result))
    state.commit(index, result)
  }
  switch (step.kind) {
    case 'finalize': {
      const { pending } = step
      const result =
        pending.stage === 'post-result'
          ? await scheduler.finalize(pending.run, pending.result)
          : scheduler.finish(pending.run, pending.result)
      state.finalized(index, result)
      // failed meanwhile: recovery (the next step) offers this result, the only one the call has
      if (state.stop?.kind === 'failed') return
      return commit(result)
    }
    case 'skip': {
      state.announce(index)
      await call(() => hooks.onStart?.(index, input, undefined))
      const result = scheduler.synthesize(
        input,
        'ABORTED_BEFORE_DISPATCH',
        toolMessages.cancelledBeforeStart(input.name),
      )
      state.finalized(index, result)
      return commit(result)
    }
    case 'recover': {
      if (!step.announced) {
        state.announce(index)
        await contained(() => hooks.onStart?.(index, input, undefined))
      }
      let result = step.final
      if (result === undefined) {
        const message = toolMessages.schedulerFailed(
          state.stop?.kind === 'failed' ? state.stop.error : undefined,
        )
        try {
          result = scheduler.synthesize(input, 'SCHEDULER_FAILED', message)
        } catch {
          // a runtime that cannot even synthesize: the call still gets its one (unobserved) result
          result = deepFreeze(failure('SCHEDULER_FAILED', message))
        }
        state.finalized(index, result)
      }
      const final = result
      await contained(() => hooks.onCommit?.(index, input, final))
      state.commit(index, final)
      return
    }
    default: {
      const never: never = step
      return never
    }
  }
}
