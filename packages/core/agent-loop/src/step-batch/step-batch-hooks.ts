import type { LateToolOutcome, ToolBatchHooks, ToolExecutionResult } from '@deepseek-ai/dsh-tools'

const noop = (): void => {}
import type { ApprovalPause } from './approval-pause.ts'
import type { NestedCallRecorder } from './nested-call-recorder.ts'
import type { StepCall, StepCalls } from './step-calls.ts'
import type { ToolCallLedger } from './tool-call-ledger.ts'
import type { ToolCallProgress } from './tool-call-progress.ts'

/**
 * The scheduler's hooks for one step: what each moment of a call means for the session (the
 * ledger), the progress events and durable approvals. A call's start appends its `tool/call`
 * without waiting for an asynchronous session, so the next call may start (and its policy run)
 * meanwhile; the call's body waits for that record instead (`onDispatch`, T25), and so do its result
 * and an approval request (the ledger).
 */
export function stepBatchHooks(options: {
  readonly calls: StepCalls
  readonly ledger: ToolCallLedger
  readonly progress: ToolCallProgress
  readonly nested: NestedCallRecorder
  readonly pause: ApprovalPause
  /** A late outcome could not be recorded: it goes to the logger. */
  readonly logLate: (index: number, outcome: LateToolOutcome, error: unknown) => void
}): ToolBatchHooks {
  const { calls, ledger, progress, nested, pause, logLate } = options
  const { list } = calls
  // A step that reads no clock reports nothing when a call is queued, starts, settles or ends: the
  // batch is given no hook for the first and last of those, and the others do the ledger's part only.
  const { timed } = progress
  // Every wait is a function of its own (`endAfter`, `recordAfterNested`…): a closure inside a hook
  // would make each call, the ones that never wait too, allocate a context for its variables.
  /** A call's end is reported once its `tool/result` is durable (T61: the next commit need not wait). */
  const ended = (index: number, result: ToolExecutionResult): void => {
    const durable = ledger.resultDurable(index)
    if (durable === undefined) return progress.committed(index, result)
    // a refused result fails the step at its end (the ledger's refusal), not here
    commitAfter(durable, index, result)
  }
  const commitAfter = (durable: Promise<void>, index: number, result: ToolExecutionResult): void =>
    void durable.then(() => progress.committed(index, result), noop)
  const endAfter = (appended: Promise<void>, index: number, result: ToolExecutionResult): Promise<void> =>
    appended.then(() => ended(index, result))
  const recordResult = timed
    ? (index: number, result: ToolExecutionResult): void | Promise<void> => {
        const appended = ledger.recordResult(index, result)
        if (appended === undefined) return ended(index, result)
        return endAfter(appended, index, result)
      }
    : (index: number, result: ToolExecutionResult): void | Promise<void> => ledger.recordResult(index, result)
  const recordAfterNested = (
    call: StepCall,
    index: number,
    result: ToolExecutionResult,
  ): void | Promise<void> => nested.afterNested(call, () => recordResult(index, result))
  const onStart: ToolBatchHooks['onStart'] = timed
    ? (index, _input, mode) => {
        ledger.recordCall(index, mode)
        progress.started(index, mode)
      }
    : (index, _input, mode) => ledger.recordCall(index, mode)
  const onDispatch = ledger.durable
  const onSuspend: ToolBatchHooks['onSuspend'] = (index, _input, reason) => pause.suspend(index, reason)
  // after the call's nested calls (a run_code program's) have their results
  const onCommit: ToolBatchHooks['onCommit'] = (index, _input, result) => {
    pause.committed(result)
    const call = list[index]!
    if (nested.answerNow(call)) return recordResult(index, result)
    return recordAfterNested(call, index, result)
  }
  // May come after this step (or the turn) ended: it is recorded where the session is then.
  const onLateOutcome: ToolBatchHooks['onLateOutcome'] = (index, _input, outcome) => {
    try {
      const recorded = ledger.recordLateOutcome(index, outcome)
      if (recorded !== undefined)
        return recorded.then(undefined, (error: unknown) => logLate(index, outcome, error))
    } catch (error) {
      logLate(index, outcome, error)
    }
  }
  // One literal per case, not `{ ...(timed ? { onQueued } : {}), onStart, … }`: a spread that brings a
  // property followed by more properties cost about 1 µs per step on Node 20 (DEVELOPERS.md).
  if (!timed) return { onStart, onDispatch, onSuspend, onCommit, onLateOutcome }
  return {
    onQueued: (index) => progress.queued(index),
    onStart,
    onDispatch,
    onSettled: (index) => progress.settled(index),
    onSuspend,
    onCommit,
    onLateOutcome,
  }
}
