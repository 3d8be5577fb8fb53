import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { PendingApproval } from '@deepseek-ai/dsh-session'
import type { ToolCallApproval, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import type { AcceptContext, EagerDispatchFigures } from '../base/types.ts'

export interface StepBatchResult {
  /** One frozen result per call, in model order. */
  readonly results: ToolExecutionResult[]
  /** True when a successful result asked to end the turn after this step (T27). */
  readonly concludesTurn: boolean
  /** Set for a streamed step: what eager dispatch did. */
  readonly eager: EagerDispatchFigures | undefined
  /**
   * Set when the step paused at a pending approval (durable approvals): `results` are those of the
   * calls before it; its contexts were recorded with the request, not handed to `acceptContext`.
   */
  readonly paused?: PendingApproval
}

/** Durable approvals for one step of the loop (a harness's `executeToolCalls` has none). */
export interface StepApprovals {
  /** The `approval` each call's input carries (suspendable, or a recorded grant's answer). */
  readonly forCall: (block: ToolCallBlock, index: number) => ToolCallApproval
  /** Seq of call 0's `tool/call` when the step continues after an answer (it is in the log). */
  readonly firstCallSeq?: number
  /** The session id call 0 was recorded with then (`firstCallSeq`'s `callId`). */
  readonly firstCallId?: string
  /** What the step had accepted before an earlier pause (from that approval request). */
  readonly carried: { readonly contexts: readonly string[]; readonly concludesTurn: boolean }
  /** The step paused: its `approval/request` is recorded. */
  readonly onRequested: (approval: PendingApproval, index: number) => void
}

/**
 * One step's calls on their way through the scheduler (`createToolBatch`) and into the session:
 * `tool/call` at start, `tool/result` at commit, both in model order (T25, T28, T29), with progress
 * events. The nested calls of a `run_code` call are recorded as pairs of their own between its
 * `tool/call` and its `tool/result` (`createNestedCallRecorder`, T33). Calls are added as the model
 * completes them; `close` ends intake; `finish` waits for every result and hands deferred contexts
 * over in model order (T27).
 */
export interface StepBatch {
  /**
   * Queues one complete call (its `id` unique in the step). The call runs and is recorded under an
   * id unique in the session (`createCallIdAllocator`): the model's, unless that is taken.
   */
  add(block: ToolCallBlock): void
  /** The model's stream ended at `at`: later calls are not eager, and the figures are measured to here. */
  streamEnded(at: number): void
  /** See `ToolCallLedger.messageRecorded`. */
  messageRecorded(seq: number): void
  /** See `ToolCallLedger.messageRefused`. */
  messageRefused(): void
  /** No more calls. */
  close(): void
  /**
   * After `close`: every call's result, contexts handed to `acceptContext` in model order. Rejects
   * like `executeToolCalls` when the batch failed: with its error once every recorded call has its
   * result, else with `UNRECORDED_RESULTS`.
   */
  finish(acceptContext: AcceptContext): Promise<StepBatchResult>
}
