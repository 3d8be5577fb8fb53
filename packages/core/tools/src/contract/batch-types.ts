import type { ToolBatchHooks, ToolExecutionInput, ToolExecutionResult } from './types.ts'
import type { BatchView } from './batch-state-types.ts'

export type { ToolBatchHooks } from './types.ts'

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
