import { deepFreeze } from '@deepseek-ai/dsh-llm'
import { toolMessages } from '../contract/messages.ts'
import { failure } from '../contract/results.ts'
import type { ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type { BatchState, CommitStep, PendingResult } from './batch-state.ts'
import type { ToolBatchHooks } from '../contract/batch-types.ts'
import type { DirectToolStages, ToolRuntimeScheduler } from '../contract/scheduler-types.ts'
import { isThenable } from '../contract/is-thenable.ts'

/** A hook's return, as a promise only when it returned one (an asynchronous store). */
function settleHook(returned: unknown): Promise<unknown> | undefined {
  return isThenable(returned) ? Promise.resolve(returned) : undefined
}

/** The same, for recovery: the sink that failed may keep failing, and the batch's error is what counts. */
function contained(hook: () => unknown): Promise<unknown> | undefined {
  try {
    return settleHook(hook())?.then(undefined, () => undefined)
  } catch {
    return undefined
  }
}

/** Runs `next` now, or after `pending` when there is one: keeps the synchronous path synchronous. */
function then(pending: Promise<unknown> | undefined, next: () => void | Promise<void>): void | Promise<void> {
  return pending === undefined ? next() : pending.then(next)
}

/** What a batch's commit side works with: one per batch, handed to every `runCommitStep`. */
export interface Committer {
  readonly state: BatchState
  readonly scheduler: ToolRuntimeScheduler
  /** The runtime's stages as the batch drives them (`batchStages`): finalize answers at once when it can. */
  readonly stages: DirectToolStages
  readonly hooks: ToolBatchHooks
  /** Reports what a body did whose result recovery replaces (`CommitStep` `recover.dropped`). */
  readonly dropped: (index: number, pending: PendingResult) => void
}

/**
 * One step of a batch's commit side, in model order (T25). A normal commit runs `finalize` or
 * `finish` (the result becomes final and `tools/result` observers see it) and then `onCommit`;
 * only when the hook returned is the call committed, so a hook that failed leaves the call for
 * recovery, which offers that same result again. Recovery is the single owner of
 * `SCHEDULER_FAILED` (T13, T39): a call gets its final result if it has one, else a synthetic
 * failure, and one that never started is announced first. Returns a promise only when something
 * had to be waited for; throws (or rejects with) what a normal step's hook or the runtime threw,
 * never in recovery.
 */
export function runCommitStep(options: Committer, step: CommitStep): void | Promise<void> {
  const { index } = step
  const input = options.state.input(index)
  // Each case that makes a closure does so in a function of its own: a closure here would make this
  // function allocate a context for what it captures on every call, the plain commit's included.
  switch (step.kind) {
    case 'finalize':
      return finalizeStep(options, index, step.pending)
    case 'suspend':
      return suspendStep(options, index, input, step.reason)
    case 'skip':
      return skipStep(options, index, input)
    case 'recover':
      return recoverStep(options, step, input)
    default: {
      const never: never = step
      return never
    }
  }
}

/**
 * The step of nearly every call: `finalize` (or `finish`) its candidate, then commit it. The commit
 * side calls it directly with what `nextFinalize` returned (no step record per call); `runCommitStep`
 * calls it for a `finalize` step.
 */
export function finalizeStep(
  options: Committer,
  index: number,
  pending: PendingResult,
): void | Promise<void> {
  const { state, scheduler, stages } = options
  const input = state.input(index)
  if (pending.stage !== 'post-result')
    return commitResult(options, index, input, scheduler.finish(pending.run, pending.result))
  // a promise only when a tools/post-execute listener ran
  const finalizing = stages.finalize(pending.run, pending.result)
  return isThenable(finalizing)
    ? commitWhenFinal(options, index, input, finalizing)
    : commitResult(options, index, input, finalizing)
}

/** `commitResult` once `tools/post-execute` made the result final. */
function commitWhenFinal(
  options: Committer,
  index: number,
  input: ToolExecutionInput,
  finalizing: PromiseLike<ToolExecutionResult>,
): Promise<void> {
  return Promise.resolve(finalizing).then((result) => commitResult(options, index, input, result))
}

/** A call whose approval is pending: `onSuspend`, then the batch parks on it. */
function suspendStep(
  options: Committer,
  index: number,
  input: ToolExecutionInput,
  reason: string | undefined,
): void | Promise<void> {
  const { state, hooks } = options
  return then(settleHook(hooks.onSuspend?.(index, input, reason)), () => {
    // failed meanwhile: recovery answers the call instead
    if (state.stop?.kind !== 'failed') state.park(index)
  })
}

/** A call that never started after an abort: announced, then answered `ABORTED_BEFORE_DISPATCH`. */
function skipStep(options: Committer, index: number, input: ToolExecutionInput): void | Promise<void> {
  const { state, scheduler, hooks } = options
  state.announce(index)
  return then(settleHook(hooks.onStart?.(index, input, undefined)), () =>
    commitResult(
      options,
      index,
      input,
      scheduler.synthesize(input, 'ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)),
    ),
  )
}

/** Recovery (T13, T39): the call's final result if it has one, else `SCHEDULER_FAILED`. */
function recoverStep(
  options: Committer,
  step: Extract<CommitStep, { readonly kind: 'recover' }>,
  input: ToolExecutionInput,
): void | Promise<void> {
  const { state, scheduler, hooks } = options
  const { index } = step
  const announced = step.announced
    ? undefined
    : (state.announce(index), contained(() => hooks.onStart?.(index, input, undefined)))
  return then(announced, () => {
    const result = step.final ?? recoveryResult(state, scheduler, input)
    state.finalized(index, result)
    return then(
      contained(() => hooks.onCommit?.(index, input, result)),
      () => {
        state.commit(index, result)
        if (step.dropped !== undefined) options.dropped(index, step.dropped)
      },
    )
  })
}

/**
 * A normal commit of call `index`: the result becomes final, then `onCommit`; the call is committed
 * once the hook returned (after its promise, when it returned one). No closure on the synchronous
 * path, the one every call of a memory-session step takes.
 */
function commitResult(
  options: Committer,
  index: number,
  input: ToolExecutionInput,
  result: ToolExecutionResult,
): void | Promise<void> {
  const { state, hooks } = options
  state.finalized(index, result)
  // failed meanwhile: recovery (the next step) offers this result, the only one the call has
  if (state.stop?.kind === 'failed') return
  const pending = settleHook(hooks.onCommit?.(index, input, result))
  if (pending === undefined) return state.commit(index, result)
  return commitAfter(pending, state, index, result)
}

/** The commit once `onCommit`'s promise settled (its closure made here, not in `commitResult`). */
function commitAfter(
  pending: Promise<unknown>,
  state: BatchState,
  index: number,
  result: ToolExecutionResult,
): Promise<void> {
  return pending.then(() => state.commit(index, result))
}

function recoveryResult(
  state: BatchState,
  scheduler: ToolRuntimeScheduler,
  input: ToolExecutionInput,
): ToolExecutionResult {
  const message = toolMessages.schedulerFailed(state.stop?.kind === 'failed' ? state.stop.error : undefined)
  try {
    return scheduler.synthesize(input, 'SCHEDULER_FAILED', message)
  } catch {
    // a runtime that cannot even synthesize: the call still gets its one (unobserved) result
    return deepFreeze(failure('SCHEDULER_FAILED', message))
  }
}
