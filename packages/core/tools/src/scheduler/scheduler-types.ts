import type { Context } from '@deepseek-ai/dsh-context'
import type { CallId, JsonValue } from '@deepseek-ai/dsh-llm'
import type { CallConcurrency, ToolCallInfo, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import type { SchedulerProtocol } from './scheduler-key.ts'

/** One call between stages. Opaque: only the scheduler that prepared it may advance it. */
export interface ToolRunContext {
  readonly callId: CallId
  readonly toolName: string
  /** Parsed, frozen call info (args are `{}` when they failed to parse). */
  readonly call: ToolCallInfo
  readonly scope: Context
  readonly signal: AbortSignal
}

/** T18: what `prepare` decided. */
export type ScheduledToolPreparation =
  | { readonly stage: 'dispatch'; readonly run: ToolRunContext }
  | { readonly stage: 'post-result'; readonly run: ToolRunContext; readonly result: ToolExecutionResult }
  | { readonly stage: 'final-result'; readonly run: ToolRunContext; readonly result: ToolExecutionResult }

export type LateToolOutcome =
  { kind: 'value'; value: JsonValue | undefined } | { kind: 'error'; message: string } | { kind: 'abandoned' }

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
 * The staged pipeline a scheduler drives (docs/spec.md §6). `prepare` runs the ordered policy part,
 * `dispatch` only wrappers + body (safe to overlap), `finalize`/`finish` commit a result.
 * None of them rejects for a tool failure; they reject only on API misuse.
 */
export interface ToolRuntimeScheduler {
  readonly protocol: SchedulerProtocol
  prepare(exec: ToolExecutionInput): Promise<ScheduledToolPreparation>
  dispatch(exec: ToolRunContext): Promise<ScheduledToolDispatch>
  finalize(exec: ToolRunContext, result: ToolExecutionResult): Promise<ToolExecutionResult>
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
