import type { Logger } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError, invalidArgument } from '../contract/errors.ts'
import { checkExecutionInput, type BindInput, type CheckedInput } from '../contract/check-input.ts'
import type { ToolExecutionInput } from '../contract/types.ts'
import { createBatchSignals } from './batch-signals.ts'
import { createBatchState } from './batch-state.ts'
import { callerAborted, drive, fail, notify, type BatchRun } from './batch-run.ts'
import { dispatchFailed, settle, startCalls } from './batch-start.ts'
import { commitCalls } from './batch-commit.ts'
import type {
  CreateToolBatchOptions,
  ToolBatch,
  ToolBatchHooks,
  ToolBatchOutcome,
} from '../contract/batch-types.ts'
import {
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  claimCallId,
  checkFunction,
  checkMaxParallel,
  checkOptionsObject,
  checkSignal,
  readHooks,
} from '../contract/check-batch-input.ts'
import { keyLocksFor } from './key-locks.ts'
import { createLateReports } from './late-reports.ts'
import { loggerOf } from './logger-of.ts'
import { batchStages } from './batch-stages.ts'
import { resolveToolRuntimeScheduler } from '../contract/scheduler-key.ts'
import type { ToolRuntimeScheduler } from '../contract/scheduler-types.ts'

/**
 * Opens a batch for one step (T20–T26) whose calls arrive over time: `add` each call, `close` at
 * the end. See `BatchState` for when a call may start; the driver here reads each call's mode right
 * before it starts and again after every wait (T24), runs policy one call at a time in model order,
 * lets dispatches overlap, and commits one result per call in model order. An abort stops starts:
 * started calls drain, the rest get `ABORTED_BEFORE_DISPATCH`. A failure (a hook throws, the
 * runtime misbehaves) aborts every running call and answers every call once anyway: its final
 * result if observers already saw one, else `SCHEDULER_FAILED` (T13, T39); the bodies that started
 * drain as on an abort (the outcome waits for their dispatches, within the abort grace), and what
 * each did goes to `onLateOutcome` before the outcome settles (T38).
 * @example
 * const batch = createToolBatch({ tools: ctx.tools, signal })
 * for await (const call of completeCalls(stream)) batch.add(call)
 * batch.close()
 * const outcome = await batch.outcome
 */
export function createToolBatch(options: CreateToolBatchOptions): ToolBatch {
  const where = 'createToolBatch(options)'
  checkOptionsObject(where, 'options', options)
  const { tools, signal, maxParallel, hooks, eager, exclusiveBeforeClose } = options
  checkFunction(where, 'options.eager', eager)
  if (exclusiveBeforeClose !== undefined && typeof exclusiveBeforeClose !== 'boolean') {
    throw invalidArgument(
      `${where}: options.exclusiveBeforeClose must be a boolean, got ${describeValue(exclusiveBeforeClose)}`,
    )
  }
  return openToolBatch({
    scheduler: resolveToolRuntimeScheduler(tools),
    logger: loggerOf(tools),
    signal: checkSignal(where, 'options.signal', signal),
    maxParallel: checkMaxParallel(
      where,
      'options.maxParallel',
      maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
    ),
    hooks: readHooks(where, hooks),
    eager,
    exclusiveBeforeClose: exclusiveBeforeClose === true,
  })
}

/**
 * `createToolBatch` with settings already checked. `calls`, when given, are copies checked by the
 * caller (`copyCalls`): they are added as they are and the batch is closed (`runToolBatch`).
 */
export function openToolBatch(
  settings: {
    readonly scheduler: ToolRuntimeScheduler
    readonly logger: Logger | undefined
    readonly signal: AbortSignal | undefined
    readonly maxParallel: number
    readonly hooks: ToolBatchHooks
    readonly eager: ((input: ToolExecutionInput) => boolean) | undefined
    /** See `CreateToolBatchOptions.exclusiveBeforeClose` (absent: false). */
    readonly exclusiveBeforeClose?: boolean
  },
  calls?: readonly CheckedInput[],
): ToolBatch {
  const { scheduler, hooks, logger } = settings
  const stages = batchStages(scheduler)
  const locks = keyLocksFor(scheduler)
  const state = createBatchState({
    maxParallel: settings.maxParallel,
    locks,
    exclusiveBeforeClose: settings.exclusiveBeforeClose === true,
  })
  let resolveOutcome!: (outcome: ToolBatchOutcome) => void
  const outcome = new Promise<ToolBatchOutcome>((resolve) => (resolveOutcome = resolve))
  // The few closures a batch needs (callbacks handed to others) are made here, once per batch, and
  // only call the module-level steps with the batch's record (see `BatchRun`).
  const onChange = (): void => drive(run)
  const signals = createBatchSignals({
    caller: settings.signal,
    onCallerAbort: () => callerAborted(run),
    isCommitted: (index) => state.phase(index) === 'committed',
  })
  const lates = createLateReports({ hooks, state, logger, finished: () => run.finished, drive: onChange })
  const dispatchTo =
    stages.dispatchTo !== undefined && stages.dispatchTo.stage === stages.dispatch
      ? stages.dispatchTo
      : undefined
  const run: BatchRun = {
    state,
    scheduler,
    stages,
    hooks,
    dropped: (index, pending) => lates.dropped(index, pending),
    eager: settings.eager,
    locks,
    signals,
    lates,
    caller: settings.signal,
    dispatchTo,
    sink: {
      dispatched: (index, dispatched) => settle(run, index, dispatched, true),
      failed: (index, error) => dispatchFailed(run, index, error),
    },
    resolveOutcome,
    look: () => step(run),
    onFail: (error) => fail(run, error),
    onChange,
    finished: false,
    driving: false,
    committing: false,
  }
  const ids = new Set<string>()
  /**
   * What `add` binds a call to once its fields are checked: its id, unique in the batch, and the
   * signal it runs with. So the checked copy is made with that signal, once per call.
   */
  const bindAdded: BindInput = (callId, own) => {
    claimCallId('batch.add(call)', 'call', ids, callId)
    return signals.forCall(state.added, own)
  }

  if (settings.signal?.aborted) state.abort()

  const batch: ToolBatch = {
    add(call) {
      const where = 'batch.add(call)'
      if (state.closed) {
        throw new ToolsError({
          code: 'ALREADY_FINISHED',
          message: `${where}: the batch is closed; calls can only be added before close()`,
        })
      }
      if (typeof call !== 'object' || call === null)
        throw invalidArgument(`${where}: call must be an object, got ${describeValue(call)}`)
      // One read of the caller's object; everything after uses the checked copy.
      const index = admit(run, checkExecutionInput(where, 'call', call, undefined, bindAdded).input)
      drive(run)
      return index
    },
    close() {
      if (state.closed) return
      state.close()
      drive(run)
    },
    outcome,
    view: () => state.view(),
  }
  if (calls !== undefined) {
    for (const copy of calls) admit(run, copy.withSignal(signals.forCall(state.added, copy.signal)).input)
    batch.close()
  }
  return batch
}

/** One look at what may happen next: start what may start, commit what may commit. */
function step(run: BatchRun): void {
  run.driving = false
  if (run.state.nextToStart() !== undefined) void startCalls(run)
  if (!run.committing) void commitCalls(run)
}

/** Adds a checked copy (the batch's own, immutable object from here on, with the call's own signal). */
function admit(run: BatchRun, input: ToolExecutionInput): number {
  const index = run.state.add(input)
  notify(run, run.hooks.onQueued, index, input)
  return index
}
