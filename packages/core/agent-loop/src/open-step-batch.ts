import type { Context } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import {
  createToolBatch,
  describeThrown,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolRuntime,
} from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from './errors.ts'
import { createNestedCallRecorder } from './nested-call-recorder.ts'
import type { AcceptContext } from './read-execute-tool-calls-options.ts'
import { createToolCallLedger, type LedgerMessage } from './tool-call-ledger.ts'
import { createToolCallProgress } from './tool-call-progress.ts'
import type { EagerDispatchFigures, ToolCallProgressEvent } from './types.ts'

export interface StepBatchResult {
  /** One frozen result per call, in model order. */
  readonly results: ToolExecutionResult[]
  /** True when a successful result asked to end the turn after this step (T27). */
  readonly concludesTurn: boolean
  /** Set for a streamed step: what eager dispatch did. */
  readonly eager: EagerDispatchFigures | undefined
}

/**
 * One step's calls on their way through the scheduler (`createToolBatch`) and into the session:
 * `tool/call` at start, `tool/result` at commit, both in model order (T25, T28, T29), with progress
 * events. The nested calls of a `run_code` call are recorded as pairs of their own between its
 * `tool/call` and its `tool/result` (`createNestedCallRecorder`, T33). Calls are added as the model completes them; `close` ends intake; `finish` waits for
 * every result and hands deferred contexts over in model order (T27).
 */
export interface StepBatch {
  /** Queues one complete call (its `id` unique in the step). */
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

export function openStepBatch(options: {
  readonly ctx: Context
  readonly tools: ToolRuntime
  readonly session: AnySession
  readonly maxParallel: number
  readonly turn: number
  readonly step: number
  readonly signal: AbortSignal | undefined
  readonly onEvent: ((event: ToolCallProgressEvent) => void) | undefined
  /** Where the step's assistant message stands (pending while it streams). */
  readonly message: LedgerMessage
  /** Before `close`, whether a parallel call may start now (eager dispatch); undefined: no streaming. */
  readonly eager: ((input: ToolExecutionInput) => boolean) | undefined
  /** Names the caller in error messages. */
  readonly where: string
}): StepBatch {
  const { ctx, tools, session, turn, step, signal, onEvent, where } = options
  const blocks: ToolCallBlock[] = []
  const logger = ctx.logger
  const logLate = (index: number, outcome: unknown, error: unknown): void => {
    // a closed or failing session: the logger is the last place the outcome can go
    logger.error(`${where}: the late outcome of tool call "${blocks[index]?.id}" could not be recorded`, {
      error,
      turn,
      step,
      callId: blocks[index]?.id,
      outcome,
    })
  }
  const ledger = createToolCallLedger({
    session,
    turn,
    step,
    blocks,
    message: options.message,
    lateFailed: logLate,
  })
  const nested = createNestedCallRecorder({
    session,
    turn,
    step,
    parentSeq: ledger.callSeqOf,
    messageLanding: ledger.messageLanding,
  })
  const progress = createToolCallProgress({
    turn,
    step,
    blocks,
    tools,
    logger,
    onEvent,
    streaming: options.eager !== undefined,
  })
  const batch = createToolBatch({
    tools,
    maxParallel: options.maxParallel,
    ...(signal === undefined ? {} : { signal }),
    ...(options.eager === undefined ? {} : { eager: options.eager }),
    hooks: {
      onQueued: (index) => progress.queued(index),
      onStart: (index, _input, mode) => {
        const recorded = ledger.recordCall(index)
        if (recorded === undefined) return progress.started(index, mode)
        return recorded.then(() => progress.started(index, mode))
      },
      onSettled: (index) => progress.settled(index),
      // after the call's nested calls (a run_code program's) have their results
      onCommit: (index, _input, result) =>
        nested.afterNested(blocks[index]!.id, () => {
          const recorded = ledger.recordResult(index, result)
          if (recorded === undefined) return progress.committed(index, result)
          return recorded.then(() => progress.committed(index, result))
        }),
      // May come after this step (or the turn) ended: it is recorded where the session is then.
      onLateOutcome: (index, _input, outcome) => {
        try {
          const recorded = ledger.recordLateOutcome(index, outcome)
          if (recorded !== undefined)
            return recorded.then(undefined, (error: unknown) => logLate(index, outcome, error))
        } catch (error) {
          logLate(index, outcome, error)
        }
      },
    },
  })

  return {
    add(block) {
      blocks.push(block)
      batch.add({
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
        turn,
        step,
        nestedCallHooks: nested.hooks,
      })
    },
    streamEnded: (at) => progress.streamEnded(at),
    messageRecorded: (seq) => ledger.messageRecorded(seq),
    messageRefused: () => ledger.messageRefused(),
    close: () => batch.close(),
    async finish(acceptContext) {
      const outcome = await batch.outcome
      await ledger.settle()
      const eager = progress.figures()
      progress.close()
      if (outcome.kind === 'failed') {
        // The batch already offered every recorded call a result (its real one, or SCHEDULER_FAILED)
        // through onCommit, in model order; what the session still lacks is reported, not retried.
        const { error } = outcome
        const unanswered = [...ledger.unanswered(), ...nested.unanswered()].sort(
          (a, b) => a.callSeq - b.callSeq,
        )
        if (unanswered.length === 0) throw error
        throw new AgentLoopError({
          code: 'UNRECORDED_RESULTS',
          kind: 'system',
          cause: error,
          details: { unanswered },
          message:
            `${where}: the tool batch failed (${describeThrown(error)}) and the session refused the tool/result of ` +
            `${unanswered.map((u) => `"${u.callId}" (tool/call seq ${u.callSeq})`).join(', ')}; ` +
            'the log is not replayable until they are answered (resuming the session answers them with INTERRUPTED)',
        })
      }
      const { results } = outcome
      let concludesTurn = false
      results.forEach((result, index) => {
        if (!result.isError && result.concludesTurn === true) concludesTurn = true
        const block = blocks[index]!
        for (const text of result.additionalContexts ?? [])
          acceptContext(text, { callId: block.id, toolName: block.name })
      })
      return { results: [...results], concludesTurn, eager }
    },
  }
}
