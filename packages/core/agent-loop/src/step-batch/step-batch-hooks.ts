import type {
  ExecutionMode,
  LateToolOutcome,
  ToolBatchHooks,
  ToolExecutionInput,
  ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import type { ApprovalPause } from './approval-pause.ts'
import type { NestedCallRecorder } from './nested-call-recorder.ts'
import type { StepCall, StepCalls } from './step-calls.ts'
import type { ToolCallLedger } from './tool-call-ledger.ts'
import type { ToolCallProgress } from './tool-call-progress.ts'

const noop = (): void => {}

/** What `stepBatchHooks` is given. */
export interface StepBatchHooksOptions {
  readonly calls: StepCalls
  readonly ledger: ToolCallLedger
  readonly progress: ToolCallProgress
  readonly nested: NestedCallRecorder
  readonly pause: ApprovalPause
  /** A late outcome could not be recorded: it goes to the logger. */
  readonly logLate: (index: number, outcome: LateToolOutcome, error: unknown) => void
}

/**
 * What the hooks of one step do, as methods made once: closures made for each step lose their
 * optimized code whenever a full collection finds no step alive (V8 holds it weakly), and the next
 * step runs them unoptimized until TurboFan compiles them again (the Code Mode order effect,
 * bench/README). The hooks the scheduler calls are one-line closures into these methods.
 *
 * Every wait is a method of its own (`endAfter`, `recordAfterNested`…): a closure inside a hook
 * would make each call, the ones that never wait too, allocate a context for its variables.
 */
class StepHooks {
  private readonly list: readonly StepCall[]
  private readonly ledger: ToolCallLedger
  private readonly progress: ToolCallProgress
  private readonly nested: NestedCallRecorder
  private readonly pause: ApprovalPause
  private readonly logLate: StepBatchHooksOptions['logLate']
  /** A step that reads no clock reports nothing when a call is queued, starts, settles or ends. */
  private readonly timed: boolean

  constructor(options: StepBatchHooksOptions) {
    this.list = options.calls.list
    this.ledger = options.ledger
    this.progress = options.progress
    this.nested = options.nested
    this.pause = options.pause
    this.logLate = options.logLate
    this.timed = options.progress.timed
  }

  // The hooks (`ToolBatchHooks`), each with the scheduler's parameters (the input unused).
  queued(index: number): void {
    this.progress.queued(index)
  }

  started(index: number, _input: ToolExecutionInput, mode: ExecutionMode | undefined): void {
    this.ledger.recordCall(index, mode)
    if (this.timed) this.progress.started(index, mode)
  }

  dispatch(index: number): Promise<void> | undefined {
    return this.ledger.durable(index)
  }

  settled(index: number): void {
    this.progress.settled(index)
  }

  suspend(index: number, _input: ToolExecutionInput, reason: string | undefined): void | Promise<void> {
    return this.pause.suspend(index, reason)
  }

  /** A call's end is reported once its `tool/result` is durable (T61: the next commit need not wait). */
  private ended(index: number, result: ToolExecutionResult): void {
    const durable = this.ledger.resultDurable(index)
    if (durable === undefined) return this.progress.committed(index, result)
    // a refused result fails the step at its end (the ledger's refusal), not here
    this.commitAfter(durable, index, result)
  }

  private commitAfter(durable: Promise<void>, index: number, result: ToolExecutionResult): void {
    void durable.then(() => this.progress.committed(index, result), noop)
  }

  private endAfter(appended: Promise<void>, index: number, result: ToolExecutionResult): Promise<void> {
    return appended.then(() => this.ended(index, result))
  }

  private recordResult(index: number, result: ToolExecutionResult): void | Promise<void> {
    const appended = this.ledger.recordResult(index, result)
    if (!this.timed) return appended
    if (appended === undefined) return this.ended(index, result)
    return this.endAfter(appended, index, result)
  }

  private recordAfterNested(
    call: StepCall,
    index: number,
    result: ToolExecutionResult,
  ): void | Promise<void> {
    return this.nested.afterNested(call, () => this.recordResult(index, result))
  }

  // after the call's nested calls (a run_code program's) have their results
  committed(index: number, _input: ToolExecutionInput, result: ToolExecutionResult): void | Promise<void> {
    this.pause.committed(result)
    const call = this.list[index]!
    if (this.nested.answerNow(call)) return this.recordResult(index, result)
    return this.recordAfterNested(call, index, result)
  }

  // May come after this step (or the turn) ended: it is recorded where the session is then.
  lateOutcome(index: number, _input: ToolExecutionInput, outcome: LateToolOutcome): void | Promise<void> {
    try {
      const recorded = this.ledger.recordLateOutcome(index, outcome)
      if (recorded !== undefined) return this.logRefusal(recorded, index, outcome)
    } catch (error) {
      this.logLate(index, outcome, error)
    }
  }

  private logRefusal(recorded: Promise<void>, index: number, outcome: LateToolOutcome): Promise<void> {
    return recorded.then(undefined, (error: unknown) => this.logLate(index, outcome, error))
  }
}

/**
 * The scheduler's hooks for one step: what each moment of a call means for the session (the
 * ledger), the progress events and durable approvals. A call's start appends its `tool/call`
 * without waiting for an asynchronous session, so the next call may start (and its policy run)
 * meanwhile; the call's body waits for that record instead (`onDispatch`, T25), and so do its result
 * and an approval request (the ledger).
 */
export function stepBatchHooks(options: StepBatchHooksOptions): ToolBatchHooks {
  const hooks = new StepHooks(options)
  // The methods themselves, bound: a bound function has no code of its own to lose (an arrow
  // function per hook would be a closure made per step again).
  const onStart = hooks.started.bind(hooks)
  const onDispatch = hooks.dispatch.bind(hooks)
  const onSuspend = hooks.suspend.bind(hooks)
  const onCommit = hooks.committed.bind(hooks)
  const onLateOutcome = hooks.lateOutcome.bind(hooks)
  // A step that reads no clock is given no hook for a call's queueing and settling. One literal per
  // case, not `{ ...(timed ? { onQueued } : {}), onStart, … }`: a spread that brings a property
  // followed by more properties cost about 1 µs per step on Node 20 (DEVELOPERS.md).
  if (!options.progress.timed) return { onStart, onDispatch, onSuspend, onCommit, onLateOutcome }
  return {
    onQueued: hooks.queued.bind(hooks),
    onStart,
    onDispatch,
    onSettled: hooks.settled.bind(hooks),
    onSuspend,
    onCommit,
    onLateOutcome,
  }
}
