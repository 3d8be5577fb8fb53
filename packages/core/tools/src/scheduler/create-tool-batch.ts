import type { Logger } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError, invalidArgument } from '../contract/errors.ts'
import { describeThrown } from '../contract/results.ts'
import { checkExecutionInput, type BindInput, type CheckedInput } from '../contract/check-input.ts'
import type { ToolExecutionInput } from '../contract/types.ts'
import { createBatchSignals } from './batch-signals.ts'
import { createBatchState, type PendingResult } from './batch-state.ts'
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
import { dispatchGate } from './dispatch-gate.ts'
import { loggerOf } from './logger-of.ts'
import { runCommitStep, type Committer } from './run-commit-step.ts'
import { batchStages } from './batch-stages.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { resolveToolRuntimeScheduler } from '../contract/scheduler-key.ts'
import type {
  DispatchSink,
  ScheduledToolDispatch,
  ToolRunContext,
  ToolRuntimeScheduler,
} from '../contract/scheduler-types.ts'

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

const RESOLVED = Promise.resolve()

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
  const { scheduler, hooks, eager, logger } = settings
  const stages = batchStages(scheduler)
  const locks = keyLocksFor(scheduler)
  const state = createBatchState({
    maxParallel: settings.maxParallel,
    locks,
    exclusiveBeforeClose: settings.exclusiveBeforeClose === true,
  })
  const ids = new Set<string>()
  let finished = false
  let resolveOutcome!: (outcome: ToolBatchOutcome) => void
  const outcome = new Promise<ToolBatchOutcome>((resolve) => (resolveOutcome = resolve))

  const signals = createBatchSignals({
    caller: settings.signal,
    onCallerAbort: () => {
      if (state.abort()) signals.stop(state.unfinished(), settings.signal?.reason)
      drive()
    },
    isCommitted: (index) => state.phase(index) === 'committed',
  })

  const lates = createLateReports({ hooks, state, logger, finished: () => finished, drive: () => drive() })
  const committer: Committer = { state, scheduler, stages, hooks, dropped: lates.dropped }

  const failed = (): boolean => state.stop?.kind === 'failed'
  const fail = (error: unknown): void => {
    if (state.fail(error)) signals.stop(state.unfinished(), error)
    drive()
  }

  /** A notification hook of call `index` (absent: nothing to do); a throw or a rejection fails the batch. */
  const notify = (
    hook: ((index: number, input: ToolExecutionInput) => unknown) | undefined,
    index: number,
    input: ToolExecutionInput,
  ): void => {
    if (hook === undefined) return
    try {
      const returned = hook(index, input)
      if (isThenable(returned)) returned.then(undefined, fail)
    } catch (error) {
      fail(error)
    }
  }

  let driving = false
  let committing = false
  const step = (): void => {
    driving = false
    if (state.nextToStart() !== undefined) void startCalls()
    if (!committing) void commitCalls()
  }
  // Coalesces every change of one turn of the event loop into one look at what may happen next.
  // A resolved promise's reaction rather than `queueMicrotask`, which wraps every callback in an
  // async resource on Node (several times the cost of the reaction).
  const drive = (): void => {
    if (driving) return
    driving = true
    void RESOLVED.then(step)
  }

  const startCalls = async (): Promise<void> => {
    try {
      for (let index = state.nextToStart(); index !== undefined; index = state.nextToStart()) {
        const input = state.input(index)
        // T24: the mode is read right before the call starts, and again at every later attempt.
        const concurrency = scheduler.concurrency(input)
        if (!state.admits(index, concurrency, !state.closed && mayStartEarly(input))) {
          if (concurrency.mode === 'parallel' && concurrency.keys.length > 0) locks.onRelease(drive)
          return
        }
        state.begin(index, concurrency)
        const started = hooks.onStart?.(index, input, concurrency.mode)
        if (isThenable(started)) await started
        if (failed()) return state.abandon(index)
        // awaited only when a stage of it waited for something (a listener, a guard)
        const preparing = stages.prepare(input)
        const prepared = isThenable(preparing) ? await preparing : preparing
        if (failed()) return state.abandon(index)
        if (prepared.stage === 'dispatch') {
          state.dispatched(index)
          const gate =
            hooks.onDispatch === undefined ? undefined : dispatchGate(hooks.onDispatch, index, input)
          if (gate === undefined) dispatch(index, prepared.run)
          else dispatchAfter(gate, index, prepared.run)
        } else if (prepared.stage === 'approval-pending') {
          state.suspend(index, prepared.reason)
          drive()
        } else settle(index, prepared)
      }
    } catch (error) {
      fail(error)
    }
  }

  /**
   * The call's body runs once its gate opened. (The closures are made here: made in the loop of
   * `startCalls`, they would allocate a context for the loop's variables on every call.)
   */
  const dispatchAfter = (gate: PromiseLike<void>, index: number, run: ToolRunContext): void => {
    gate.then(() => (failed() ? state.abandon(index) : dispatchGated(index, run)), refuse(index))
  }

  /** The gate of a call refused: its body never runs, and the batch fails. */
  const refuse =
    (index: number) =>
    (error: unknown): void => {
      state.abandon(index)
      fail(error)
    }

  /**
   * A body that waited for its gate runs after the next calls' start attempts: what it changes as
   * it starts (a registration, a mode) must be read again before the next start (T24), as it would
   * have been had it run at once.
   */
  const dispatchGated = (index: number, run: ToolRunContext): void => {
    dispatch(index, run)
    drive()
  }

  // the runtime's dispatch answering into this batch (no promise, no closure per call), while
  // `dispatch` is still the stage it stands for: a stand-in for `dispatch` is never bypassed
  const dispatchTo =
    stages.dispatchTo !== undefined && stages.dispatchTo.stage === stages.dispatch
      ? stages.dispatchTo
      : undefined
  const sink: DispatchSink = {
    dispatched: (index, dispatched) => settle(index, dispatched, true),
    failed: (index, error) => dispatchFailed(index, error),
  }

  const dispatch = (index: number, run: ToolRunContext): void => {
    if (dispatchTo !== undefined) {
      try {
        return dispatchTo.into(run, sink, index)
      } catch (error) {
        return dispatchFailed(index, error)
      }
    }
    let dispatching: ScheduledToolDispatch | PromiseLike<ScheduledToolDispatch>
    try {
      dispatching = stages.dispatch(run)
    } catch (error) {
      return dispatchFailed(index, error)
    }
    // a body that returned a plain value has settled already: no promise to wait for
    if (!isThenable(dispatching)) return settle(index, dispatching, true)
    settleWhenDispatched(dispatching, index)
  }

  /** What the dispatch of call `index` answers, once it does (its closures made here, not in `dispatch`). */
  const settleWhenDispatched = (dispatching: PromiseLike<ScheduledToolDispatch>, index: number): void => {
    dispatching.then(
      (dispatched) => settle(index, dispatched, true),
      (error: unknown) => dispatchFailed(index, error),
    )
  }

  const dispatchFailed = (index: number, error: unknown): void => {
    // answered by recovery already: nothing is known of its body but that
    if (state.phase(index) === 'committed')
      lates.report(index, { kind: 'error', message: `its dispatch failed: ${describeThrown(error)}` })
    state.abandon(index)
    fail(error)
  }

  const mayStartEarly = (input: ToolExecutionInput): boolean => {
    if (eager === undefined) return true
    try {
      return eager(input) === true
    } catch {
      return false
    }
  }

  /** `dispatched`: the candidate is what a dispatch returned (a body may have run). */
  const settle = (index: number, pending: PendingResult, dispatched = false): void => {
    const body = (pending as ScheduledToolDispatch).bodySettled
    if (body !== undefined) lates.watchBody(index, body)
    // Also after a failure: the claim must follow the body (recovery ignores the candidate itself).
    if (state.settle(index, pending, body !== undefined)) {
      if (!failed()) notify(hooks.onSettled, index, state.input(index))
    } else if (dispatched && body === undefined && state.phase(index) === 'committed') {
      // recovery answered the call while its body ran: what the body did goes out as a late outcome
      lates.dropped(index, pending)
    }
    drive()
  }

  const commitCalls = async (): Promise<void> => {
    committing = true
    const before = state.committed
    for (let next = state.nextCommit(); next !== undefined; next = state.nextCommit()) {
      state.beginCommit()
      try {
        // synchronous unless finalize or a hook returned a promise
        const pending = runCommitStep(committer, next)
        if (pending !== undefined) await pending
      } catch (error) {
        fail(error)
      } finally {
        state.endCommit()
      }
    }
    committing = false
    if (!finished && state.done && lates.pending() === 0) finish()
    // a commit may open a barrier or the exclusive turn of the next call
    else if (state.committed !== before) drive()
  }

  const finish = (): void => {
    finished = true
    signals.detach()
    const results = state.results()
    const stop = state.stop
    const parked = state.parked
    resolveOutcome(
      stop?.kind === 'failed'
        ? { kind: 'failed', error: stop.error, results }
        : parked !== undefined
          ? { kind: 'suspended', results, index: parked.index, reason: parked.reason }
          : { kind: 'completed', results },
    )
  }

  /** Adds a checked copy (the batch's own, immutable object from here on, with the call's own signal). */
  const admit = (input: ToolExecutionInput): number => {
    const index = state.add(input)
    notify(hooks.onQueued, index, input)
    return index
  }
  const intake = (copy: CheckedInput): number =>
    admit(copy.withSignal(signals.forCall(state.added, copy.signal)).input)
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
      const index = admit(checkExecutionInput(where, 'call', call, undefined, bindAdded).input)
      drive()
      return index
    },
    close() {
      if (state.closed) return
      state.close()
      drive()
    },
    outcome,
    view: () => state.view(),
  }
  if (calls !== undefined) {
    for (const call of calls) intake(call)
    batch.close()
  }
  return batch
}
