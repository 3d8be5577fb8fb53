import type { ExecutionMode, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import type { BatchView } from './batch-state.ts'
import type { LateToolOutcome } from './scheduler-types.ts'

/**
 * Observation points of a batch, in the order they can happen for one call. `onStart` and
 * `onCommit` are where a loop records `tool/call` and `tool/result`: both run in model order, and
 * when either returns a promise the batch waits for it before the next start or commit (so an
 * asynchronous store keeps its order). A hook that throws or rejects fails the batch, except
 * `onLateOutcome`, whose failures are logged.
 */
export interface ToolBatchHooks {
  /** The call was added (for `runToolBatch`: every call, at once, when the batch begins). */
  readonly onQueued?: (index: number, input: ToolExecutionInput) => void
  /**
   * The call takes its slot (parallel) or turn (exclusive), right before its policy stage. `mode` is
   * undefined for a call that never started (an abort skipped it, or the batch failed first).
   */
  readonly onStart?: (
    index: number,
    input: ToolExecutionInput,
    mode: ExecutionMode | undefined,
  ) => void | PromiseLike<void>
  /**
   * Durable approvals: the call's approval is pending (its input was `approval: suspendable` and the
   * approver answered `pending`), every call before it has committed, and nothing after it will
   * start. `reason` is the policy's `ask` reason. The batch then ends `suspended`; a hook that throws
   * fails it instead (recovery answers every call).
   */
  readonly onSuspend?: (
    index: number,
    input: ToolExecutionInput,
    reason: string | undefined,
  ) => void | PromiseLike<void>
  /** A candidate result exists (before post-execute and commit). */
  readonly onSettled?: (index: number, input: ToolExecutionInput) => void
  /**
   * The call's final, frozen result, in model order. After a failed batch the same result may be
   * offered again for a call whose `onCommit` threw: treat it as a retry, not a second result.
   */
  readonly onCommit?: (
    index: number,
    input: ToolExecutionInput,
    result: ToolExecutionResult,
  ) => void | PromiseLike<void>
  /**
   * The body of a call whose result does not carry what it did has settled now: what it ended with.
   * Either the result was produced while the body still ran (a `TIMEOUT`, or `ABORTED` after the
   * abort grace; possibly after the batch ended: the call kept its claim, keys, pool slot or
   * barrier, until this moment), or the batch failed and answered the call (`SCHEDULER_FAILED`)
   * while its body ran, or after it returned a result that never became final: then it comes before
   * the batch's outcome settles, which waits for what this returns. Called at most once per call.
   */
  readonly onLateOutcome?: (
    index: number,
    input: ToolExecutionInput,
    late: LateToolOutcome,
  ) => void | PromiseLike<void>
}

/**
 * How a batch ended. `completed` and `failed`: every call has exactly one result, in model order.
 * `suspended` (only with `approval: suspendable` calls): the call at `index` waits for its approval;
 * `results` are those of the calls before it, and the calls after it never started.
 */
export type ToolBatchOutcome =
  | { readonly kind: 'completed'; readonly results: ToolExecutionResult[] }
  | { readonly kind: 'failed'; readonly error: unknown; readonly results: ToolExecutionResult[] }
  | {
      readonly kind: 'suspended'
      readonly results: ToolExecutionResult[]
      readonly index: number
      readonly reason: string | undefined
    }

export interface CreateToolBatchOptions {
  /** A `ctx.tools` (any compatible copy of the package). */
  readonly tools: unknown
  /** Aborts the batch: started calls drain, the rest get `ABORTED_BEFORE_DISPATCH` (T26). */
  readonly signal?: AbortSignal
  /** Parallel pool size, a positive integer (default 10). */
  readonly maxParallel?: number
  readonly hooks?: ToolBatchHooks
  /**
   * Before `close()`, whether this parallel call may start now (default: yes). Read at every start
   * attempt; a throw counts as no. Exclusive calls never start before `close()`.
   */
  readonly eager?: (input: ToolExecutionInput) => boolean
  /**
   * For a batch whose calls are a stream with no known end (a `run_code` program's nested calls):
   * an exclusive call may start before `close()`, as soon as everything added before it has
   * committed and no body of the batch still runs (default false: an exclusive call waits for
   * `close()`, so a model stream that fails never leaves a barrier's side effects behind, T40).
   */
  readonly exclusiveBeforeClose?: boolean
}

/**
 * One step's calls, handed over as they arrive (a streaming model emits them one by one):
 * `add` each complete call, `close` at the end of the stream. Calls start in model order as soon
 * as the contract allows; `outcome` settles after `close()` once every call has its one result.
 */
export interface ToolBatch {
  /** Adds a call; returns its index. Throws on a malformed call, a repeated `callId`, or after `close()`. */
  add(call: ToolExecutionInput): number
  /** No more calls (idempotent). Exclusive calls and non-eager ones wait for it. */
  close(): void
  /** Never rejects. */
  readonly outcome: Promise<ToolBatchOutcome>
  /** The queue and counts now (p-limit style), for progress displays and tests. */
  view(): BatchView
}
