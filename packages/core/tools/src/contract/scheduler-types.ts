import type { Context } from '@deepseek-ai/dsh-context'
import type { CallId } from '@deepseek-ai/dsh-llm'
import type { CallConcurrency, ToolCallInfo, ToolExecutionInput, ToolExecutionResult } from './types.ts'
import type { LateToolOutcome } from './late-tool-outcome.ts'

export type { LateToolOutcome } from './late-tool-outcome.ts'

/** Which copy of the tools package installed a runtime, so a consumer can tell whether it speaks its version (T19). */
export interface SchedulerProtocol {
  readonly packageName: string
  readonly version: string
  readonly path: string
}

/** One call between stages. Opaque: only the scheduler that prepared it may advance it. */
export interface ToolRunContext {
  readonly callId: CallId
  readonly toolName: string
  /** Parsed, frozen call info (args are `{}` when they failed to parse). */
  readonly call: ToolCallInfo
  readonly scope: Context
  readonly signal: AbortSignal
}

/**
 * T18: what `prepare` decided. `approval-pending` comes only for an input with
 * `approval: { kind: 'suspendable' }` whose approver answered `pending`: the call has no result in
 * this process (the run is spent; every stage refuses it), and the driver records the pending
 * approval (`reason` is the policy's `ask` reason) and prepares the call again with the answer.
 */
export type ScheduledToolPreparation =
  | { readonly stage: 'dispatch'; readonly run: ToolRunContext }
  | { readonly stage: 'post-result'; readonly run: ToolRunContext; readonly result: ToolExecutionResult }
  | { readonly stage: 'final-result'; readonly run: ToolRunContext; readonly result: ToolExecutionResult }
  | { readonly stage: 'approval-pending'; readonly run: ToolRunContext; readonly reason: string | undefined }

/**
 * What `dispatch` produced. `bodySettled` is present only when the result was produced while the
 * body had not settled (a timeout, an abort past the grace, a wrapper that answered without
 * waiting): it never rejects and resolves when the body settles, or with `{ kind: 'abandoned' }`
 * after `lateBodyCapMs`. A scheduler holds the call's resources (its concurrency keys) until then.
 */
export type ScheduledToolDispatch =
  | {
      readonly stage: 'post-result'
      readonly run: ToolRunContext
      readonly result: ToolExecutionResult
      readonly bodySettled?: Promise<LateToolOutcome>
    }
  | {
      readonly stage: 'final-result'
      readonly run: ToolRunContext
      readonly result: ToolExecutionResult
      readonly bodySettled?: Promise<LateToolOutcome>
    }

/**
 * The asynchronous stages of `ToolRuntimeScheduler`, answering without a promise when the stage
 * had nothing to wait for (no listener, no guard, a body that returned a plain value): a promise
 * comes back exactly when something was awaited. They throw where the promise forms reject (API
 * misuse). A batch drives a runtime through them when it has them, so a call whose stages are
 * synchronous costs no promise and no turn of the microtask queue per stage.
 */
export interface DirectToolStages {
  /**
   * The promise forms these stages stand for. A batch drives `direct` only while the scheduler's
   * `prepare`, `dispatch` and `finalize` are still these very functions: a scheduler that wraps
   * the runtime's and replaces a stage (spread into a new object or assigned in place) is driven
   * through its promise forms, so its stage is never bypassed.
   */
  readonly promiseForms?: Pick<ToolRuntimeScheduler, 'prepare' | 'dispatch' | 'finalize'>
  prepare(exec: ToolExecutionInput): ScheduledToolPreparation | Promise<ScheduledToolPreparation>
  dispatch(exec: ToolRunContext): ScheduledToolDispatch | Promise<ScheduledToolDispatch>
  /**
   * `dispatch` answering into a sink instead of returning: `into(run, sink, index)` calls
   * `sink.dispatched(index, …)` with what `dispatch(run)` would have answered (at once, when that is
   * no promise), or `sink.failed(index, error)` where its promise would have rejected; it throws
   * where `dispatch` throws. A batch answers every call through one sink of its own, so a call's
   * dispatch costs it no promise and no closure. Optional; a batch uses it only while `dispatch`
   * is still `stage` (a stand-in for `dispatch` is never bypassed).
   */
  readonly dispatchTo?: {
    readonly stage: DirectToolStages['dispatch']
    into(exec: ToolRunContext, sink: DispatchSink, index: number): void
  }
  finalize(
    exec: ToolRunContext,
    result: ToolExecutionResult,
  ): ToolExecutionResult | Promise<ToolExecutionResult>
}

/** Where `DirectToolStages.dispatchTo` answers the dispatches of one driver (a batch), by call index. */
export interface DispatchSink {
  dispatched(index: number, dispatched: ScheduledToolDispatch): void
  failed(index: number, error: unknown): void
}

/**
 * The staged pipeline a scheduler drives (docs/spec.md §6). `prepare` runs the ordered policy part,
 * `dispatch` only wrappers + body (safe to overlap), `finalize`/`finish` commit a result.
 * None of them rejects for a tool failure; they reject only on API misuse.
 */
export interface ToolRuntimeScheduler {
  readonly protocol: SchedulerProtocol
  prepare(exec: ToolExecutionInput): Promise<ScheduledToolPreparation>
  dispatch(exec: ToolRunContext): Promise<ScheduledToolDispatch>
  finalize(exec: ToolRunContext, result: ToolExecutionResult): Promise<ToolExecutionResult>
  /**
   * The same three stages without a promise when none is needed (`DirectToolStages`). Optional: a
   * runtime installed by an earlier compatible copy of the package has none, and is driven through
   * the promise forms. A batch drives these instead of the promise forms only while those are the
   * ones `direct.promiseForms` names: a wrapper that replaces a stage is never bypassed.
   */
  readonly direct?: DirectToolStages
  finish(exec: ToolRunContext, result: ToolExecutionResult): ToolExecutionResult
  /** Mode and resource keys of a call, read now (T21, T24). */
  concurrency(exec: ToolExecutionInput): CallConcurrency
  /** A committed synthetic failure for a call that never ran (abort, scheduler failure): T26. */
  synthesize(
    exec: ToolExecutionInput,
    code: 'ABORTED_BEFORE_DISPATCH' | 'SCHEDULER_FAILED' | 'INTERRUPTED',
    message: string,
  ): ToolExecutionResult
}
