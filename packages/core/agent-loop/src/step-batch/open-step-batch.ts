import type { Context } from '@deepseek-ai/dsh-context'
import type { AnySession } from '@deepseek-ai/dsh-session'
import {
  createToolBatch,
  type LateToolOutcome,
  type ToolBatchOutcome,
  type ToolExecutionInput,
  type ToolRuntime,
} from '@deepseek-ai/dsh-tools'
import { sessionIdOf } from '../log/session-id-of.ts'
import type { RecordedCallBlock, StepIds } from '../log/create-call-id-allocator.ts'
import type { CallFix } from '../base/context-types.ts'
import type { ToolCallProgressEvent } from '../base/types.ts'
import { createApprovalPause } from './approval-pause.ts'
import { createBodyStartRecorder } from './body-start-recorder.ts'
import { createCallIntake } from './call-intake.ts'
import { createNestedCallRecorder } from './nested-call-recorder.ts'
import type { StepRepair } from './repair-step-call.ts'
import { stepBatchHooks } from './step-batch-hooks.ts'
import { stepBatchResult } from './step-batch-result.ts'
import type { StepApprovals, StepBatch } from './step-batch-types.ts'
import { createStepCalls } from './step-calls.ts'
import { createToolCallLedger, type LedgerMessage } from './tool-call-ledger.ts'
import { createToolCallProgress } from './tool-call-progress.ts'

export type { StepApprovals, StepBatch, StepBatchResult } from './step-batch-types.ts'

/** `block` with what the loop did to it; each field named (a spread adding `fix` costs ~1 µs: DEVELOPERS.md). */
function withFix(block: RecordedCallBlock, fix: CallFix): RecordedCallBlock {
  const { type, id, name, arguments: args, modelCallId } = block
  return modelCallId === undefined
    ? { type, id, name, arguments: args, fix }
    : { type, id, name, arguments: args, modelCallId, fix }
}

/**
 * Opens the batch of one step (`StepBatch`): wires the step's record of its calls (`StepCalls`)
 * to the session (the ledger, the nested calls, `tool/began`), the progress events, durable
 * approvals and the call intake, and hands them to the scheduler as its hooks.
 */
export function openStepBatch(options: {
  readonly ctx: Context
  readonly tools: ToolRuntime
  readonly session: AnySession
  readonly maxParallel: number
  readonly turn: number
  readonly step: number
  readonly signal: AbortSignal | undefined
  /** Whoever watches the step's calls (progress events are built only for one). */
  readonly onEvent: ((event: ToolCallProgressEvent) => void) | undefined
  /**
   * Each `tool/result` records the call's `timings` even when nobody watches (an agent's turn);
   * without it they are recorded only when `onEvent` is given or the step streams.
   */
  readonly recordTimings?: boolean
  /** Where the step's assistant message stands (pending while it streams). */
  readonly message: LedgerMessage
  /** Before `close`, whether a parallel call may start now (eager dispatch); undefined: no streaming. */
  readonly eager: ((input: ToolExecutionInput) => boolean) | undefined
  /** What the caller knows of the calls' ids (`StepIds`); `any` when not given. */
  readonly stepIds?: StepIds
  /** Names the caller in error messages. */
  readonly where: string
  readonly approvals?: StepApprovals
  /** Broken calls are offered to the repair hook before they run (T54, T55); without it nothing is checked. */
  readonly repair?: StepRepair
}): StepBatch {
  const { ctx, tools, session, turn, step, onEvent, where, approvals } = options
  const calls = createStepCalls()
  const { list } = calls
  const logger = ctx.logger
  const logLate = (index: number, outcome: LateToolOutcome, error: unknown): void => {
    // a closed or failing session: the logger is the last place the outcome can go
    const callId = list[index]?.block.id
    logger.error(`${where}: the late outcome of tool call "${callId}" could not be recorded`, {
      error,
      turn,
      step,
      callId,
      outcome,
    })
  }
  const idempotencyScope = sessionIdOf(session)
  const effects = createBodyStartRecorder({ session, turn, step, calls, idempotencyScope })
  const progress = createToolCallProgress({
    turn,
    step,
    calls,
    tools,
    logger,
    onEvent,
    streaming: options.eager !== undefined,
    recordTimings: options.recordTimings === true,
  })
  const ledger = createToolCallLedger({
    session,
    turn,
    step,
    calls,
    idempotencyScope,
    message: options.message,
    lateFailed: logLate,
    ...(approvals?.firstCallSeq === undefined ? {} : { firstCallSeq: approvals.firstCallSeq }),
    timings: (call) => progress.recordedTimings(call),
  })
  const pause = createApprovalPause({ approvals, ledger, calls, turn, step, where })
  // T48: what a call's body reports reaches whoever watches the step (top-level calls only)
  const stopProgress =
    onEvent === undefined
      ? undefined
      : ctx.on('tools/progress', (report) => {
          const call = calls.byId(report.callId)
          if (call !== undefined) progress.reported(call, report)
        })
  const nested = createNestedCallRecorder({
    session,
    turn,
    step,
    calls,
    messageLanding: ledger.messageLanding,
    timed: progress.timed,
  })
  const batch = createToolBatch({
    tools,
    maxParallel: options.maxParallel,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.eager === undefined ? {} : { eager: options.eager }),
    hooks: stepBatchHooks({ calls, ledger, progress, nested, pause, logLate }),
  })

  const nestedCallHooks = nested.hooks
  const enqueue = (block: RecordedCallBlock, fix: CallFix | undefined): void => {
    const index = list.length
    calls.add(fix === undefined ? block : withFix(block, fix))
    const ran = fix?.kind === 'repaired' ? fix : block
    // A literal per case, no spread: a conditional spread cost a runtime copy per call and gave the
    // scheduler's reads of the input more than one shape to handle.
    batch.add(
      approvals === undefined
        ? { callId: block.id, name: ran.name, arguments: ran.arguments, turn, step, nestedCallHooks, effects }
        : {
            callId: block.id,
            name: ran.name,
            arguments: ran.arguments,
            turn,
            step,
            approval: approvals.forCall(block, index),
            nestedCallHooks,
            effects,
          },
    )
  }
  const intake = createCallIntake({
    session,
    tools,
    approvals,
    repair: options.repair,
    stepIds: options.stepIds ?? 'any',
    logger,
    where,
    handedOver: () => list.length,
    enqueue,
    closeBatch: () => batch.close(),
  })

  return {
    add: (block) => intake.add(block),
    streamEnded: (at) => progress.streamEnded(at),
    messageRecorded: (seq) => ledger.messageRecorded(seq),
    messageRefused: () => ledger.messageRefused(),
    close: () => intake.close(),
    async finish(acceptContext) {
      const settled = await batch.outcome
      await ledger.settle()
      stopProgress?.()
      const eager = progress.figures()
      progress.close()
      // a result the session refused after the batch had moved on (T61) fails the step all the same
      const refused = ledger.refusal()
      const outcome: ToolBatchOutcome =
        refused !== undefined && settled.kind !== 'failed'
          ? { kind: 'failed', error: refused.error, results: settled.results }
          : settled
      return stepBatchResult({ outcome, calls, eager, paused: pause.paused(), where, acceptContext })
    },
  }
}
