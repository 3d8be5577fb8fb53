import type { ExecutionMode, LateToolOutcome, ToolExecutionResult } from '@deepseek-ai/dsh-tools'

/**
 * Where the assistant message holding the step's calls stands. `recorded`: it is in the session
 * (at `seq`, which each `tool/call` then cites; `undefined` when the caller did not say). `pending`:
 * the model is still streaming it; calls that start meanwhile are recorded when it lands.
 */
export type LedgerMessage =
  { readonly kind: 'recorded'; readonly seq: number | undefined } | { readonly kind: 'pending' }

/**
 * What one step recorded in the session. Calls are recorded in model order and answered in model
 * order, so the answered calls are always a prefix of the recorded ones: a result offered while an
 * earlier one is missing is refused. That keeps a failed step's log replayable, or repairable by
 * `resume` (which answers the unanswered tail with `INTERRUPTED`).
 *
 * Eager dispatch (T40): nothing of a step is recorded before its assistant message. A call that
 * starts while the message still streams has its `tool/call` held back and appended when the message
 * lands (`messageRecorded`), in model order, before any result; a result that is ready earlier waits
 * for it (`recordResult` then returns a promise, which the batch awaits). If the message is never
 * recorded (`messageRefused`), nothing of the step is.
 *
 * With an asynchronous session (`AsyncSession`) a `tool/call` is appended without holding the next
 * start back (`CallRecords`): the call's body waits for it instead (`durable`, which the batch
 * awaits through `onDispatch`), and so do its result and an approval request, which cite its seq
 * (T25). A result counts as committed only once its `tool/result` is durable. With a synchronous
 * session nothing here allocates a promise.
 */
export interface ToolCallLedger {
  /**
   * Appends `tool/call` for call `index` (or holds it back until the message lands), with the mode
   * it started in (undefined for a call announced without starting). Throws when the session
   * refused it at once, or refused an earlier call's: the call then stays unannounced.
   */
  recordCall(index: number, mode: ExecutionMode | undefined): void
  /**
   * While call `index`'s `tool/call` (or an earlier one of the step) is not durable yet: a promise
   * that settles when it is, and rejects when the session refused it. Its body must not start before.
   */
  durable(index: number): Promise<void> | undefined
  /**
   * Appends `tool/result` for call `index` once its `tool/call` is durable; refuses to answer out of
   * model order. With an asynchronous session it returns once the append is made, not once it is
   * durable (`resultDurable`), so the next result can join the same commit; `settle` waits for them.
   */
  recordResult(index: number, result: ToolExecutionResult): void | Promise<void>
  /** While call `index`'s `tool/result` is not durable yet: a promise that settles when it is. */
  resultDurable(index: number): Promise<void> | undefined
  /** Why the session refused an append of this step (the step fails with it), once it did. */
  refusal(): { readonly error: unknown } | undefined
  /**
   * Appends `tool/late-outcome` for call `index`, citing its call and result; one that comes before
   * its result is recorded is held until then (or until `settle`).
   */
  recordLateOutcome(index: number, outcome: LateToolOutcome): void | Promise<void>
  /**
   * The batch is over: once every result appended is durable (or refused), late outcomes still held
   * are recorded citing their call only (or reported); the promise (asynchronous sessions) resolves
   * once they are settled, and never rejects.
   */
  settle(): void | Promise<void>
  /**
   * The assistant message was appended at `seq`: the held-back `tool/call`s are appended now, in
   * model order. When the session refuses one, it and every later call stay unrecorded and their
   * results are refused with the session's error (the batch then fails, and `resume` records them).
   */
  messageRecorded(seq: number): void
  /** The assistant message could not be recorded: no call or result of this step will be. */
  messageRefused(): void
  /**
   * Durable approvals: appends `approval/request` for call `index` (its approval is pending, every
   * earlier call answered), citing its `tool/call`; waits for the message like a result does.
   * Returns the request's seq.
   */
  recordApprovalRequest(
    index: number,
    extra: {
      readonly reason: string | undefined
      readonly contexts: readonly string[]
      readonly concludesTurn: boolean
    },
  ): number | Promise<number>
  /**
   * While the assistant message streams: a promise that settles when it is recorded (the held-back
   * calls then are) or refused. Undefined once either happened.
   */
  messageLanding(): Promise<void> | undefined
}
