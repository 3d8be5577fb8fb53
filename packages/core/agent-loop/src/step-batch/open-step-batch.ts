import type { Context, Logger } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import {
  createToolBatch,
  type LateToolOutcome,
  type ToolBatch,
  type ToolBatchHooks,
  type ToolBatchOutcome,
  type ToolCallEffects,
  type ToolExecutionInput,
  type ToolRuntime,
} from '@deepseek-ai/dsh-tools'
import { sessionIdOf } from '../log/session-id-of.ts'
import type { RecordedCallBlock, StepIds } from '../log/create-call-id-allocator.ts'
import type { CallFix } from '../base/context-types.ts'
import type { AcceptContext, ToolCallProgressEvent } from '../base/types.ts'
import { createApprovalPause, type ApprovalPause } from './approval-pause.ts'
import { createBodyStartRecorder } from './body-start-recorder.ts'
import { createCallIntake, type CallIntake } from './call-intake.ts'
import { createNestedCallRecorder } from './nested-call-recorder.ts'
import type { StepRepair } from './repair-step-call.ts'
import { stepBatchHooks } from './step-batch-hooks.ts'
import { stepBatchResult } from './step-batch-result.ts'
import type { StepApprovals, StepBatch, StepBatchResult } from './step-batch-types.ts'
import { createStepCalls, type StepCall, type StepCalls } from './step-calls.ts'
import { createToolCallLedger, type LedgerMessage, type ToolCallLedger } from './tool-call-ledger.ts'
import { createToolCallProgress, type ToolCallProgress } from './tool-call-progress.ts'

export type { StepApprovals, StepBatch, StepBatchResult } from './step-batch-types.ts'

/** `block` with what the loop did to it; each field named (a spread adding `fix` costs ~1 µs: DEVELOPERS.md). */
function withFix(block: RecordedCallBlock, fix: CallFix): RecordedCallBlock {
  const { type, id, name, arguments: args, modelCallId } = block
  return modelCallId === undefined
    ? { type, id, name, arguments: args, fix }
    : { type, id, name, arguments: args, modelCallId, fix }
}

/** What `openStepBatch` is given. */
export interface StepBatchOptions {
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
}

/**
 * One step's batch as a class: what runs per call (`enqueue`) and per step (`finish`) are methods
 * made once, not closures made for each step, which lose their optimized code when a full
 * collection finds no step alive (the Code Mode order effect, bench/README).
 */
class OpenStepBatch implements StepBatch {
  private readonly calls: StepCalls
  private readonly list: readonly StepCall[]
  private readonly logger: Logger
  private readonly where: string
  private readonly turn: number
  private readonly step: number
  private readonly approvals: StepApprovals | undefined
  private readonly effects: ToolCallEffects
  private readonly progress: ToolCallProgress
  private readonly ledger: ToolCallLedger
  private readonly pause: ApprovalPause
  private readonly stopProgress: (() => void) | undefined
  private readonly nestedCallHooks: ToolBatchHooks
  private readonly batch: ToolBatch
  private readonly intake: CallIntake

  constructor(options: StepBatchOptions) {
    const { ctx, tools, session, turn, step, onEvent, where, approvals } = options
    const calls = createStepCalls()
    this.calls = calls
    this.list = calls.list
    this.logger = ctx.logger
    this.where = where
    this.turn = turn
    this.step = step
    this.approvals = approvals
    // The callbacks below are methods bound, not arrow functions: a bound function has no code of
    // its own to lose, where a closure made per step runs unoptimized again after a full collection.
    const logLate = this.logLate.bind(this)
    const idempotencyScope = sessionIdOf(session)
    this.effects = createBodyStartRecorder({ session, turn, step, calls, idempotencyScope })
    const progress = createToolCallProgress({
      turn,
      step,
      calls,
      tools,
      logger: this.logger,
      onEvent,
      streaming: options.eager !== undefined,
      recordTimings: options.recordTimings === true,
    })
    this.progress = progress
    const ledger = createToolCallLedger({
      session,
      turn,
      step,
      calls,
      idempotencyScope,
      message: options.message,
      lateFailed: logLate,
      ...(approvals?.firstCallSeq === undefined ? {} : { firstCallSeq: approvals.firstCallSeq }),
      timings: progress.recordedTimings.bind(progress),
    })
    this.ledger = ledger
    const pause = createApprovalPause({ approvals, ledger, calls, turn, step, where })
    this.pause = pause
    // T48: what a call's body reports reaches whoever watches the step (top-level calls only)
    this.stopProgress =
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
      messageLanding: () => ledger.messageLanding(),
      timed: progress.timed,
    })
    this.nestedCallHooks = nested.hooks
    this.batch = createToolBatch({
      tools,
      maxParallel: options.maxParallel,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.eager === undefined ? {} : { eager: options.eager }),
      hooks: stepBatchHooks({ calls, ledger, progress, nested, pause, logLate }),
    })
    this.intake = createCallIntake({
      session,
      tools,
      approvals,
      repair: options.repair,
      stepIds: options.stepIds ?? 'any',
      logger: this.logger,
      where,
      handedOver: this.handedOver.bind(this),
      enqueue: this.enqueue.bind(this),
      closeBatch: () => this.batch.close(),
    })
  }

  private logLate(index: number, outcome: LateToolOutcome, error: unknown): void {
    // a closed or failing session: the logger is the last place the outcome can go
    const callId = this.list[index]?.block.id
    this.logger.error(`${this.where}: the late outcome of tool call "${callId}" could not be recorded`, {
      error,
      turn: this.turn,
      step: this.step,
      callId,
      outcome,
    })
  }

  private handedOver(): number {
    return this.list.length
  }

  private enqueue(block: RecordedCallBlock, fix: CallFix | undefined): void {
    const { calls, approvals, turn, step, nestedCallHooks, effects } = this
    const index = calls.list.length
    calls.add(fix === undefined ? block : withFix(block, fix))
    const ran = fix?.kind === 'repaired' ? fix : block
    // A literal per case, no spread: a conditional spread cost a runtime copy per call and gave the
    // scheduler's reads of the input more than one shape to handle.
    this.batch.add(
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

  add(block: ToolCallBlock): void {
    this.intake.add(block)
  }

  streamEnded(at: number): void {
    this.progress.streamEnded(at)
  }

  messageRecorded(seq: number): void {
    this.ledger.messageRecorded(seq)
  }

  messageRefused(): void {
    this.ledger.messageRefused()
  }

  close(): void {
    this.intake.close()
  }

  async finish(acceptContext: AcceptContext): Promise<StepBatchResult> {
    const settled = await this.batch.outcome
    await this.ledger.settle()
    this.stopProgress?.()
    const eager = this.progress.figures()
    this.progress.close()
    // a result the session refused after the batch had moved on (T61) fails the step all the same
    const refused = this.ledger.refusal()
    const outcome: ToolBatchOutcome =
      refused !== undefined && settled.kind !== 'failed'
        ? { kind: 'failed', error: refused.error, results: settled.results }
        : settled
    const { calls, where } = this
    return stepBatchResult({ outcome, calls, eager, paused: this.pause.paused(), where, acceptContext })
  }
}

/**
 * Opens the batch of one step (`StepBatch`): wires the step's record of its calls (`StepCalls`)
 * to the session (the ledger, the nested calls, `tool/began`), the progress events, durable
 * approvals and the call intake, and hands them to the scheduler as its hooks.
 */
export function openStepBatch(options: StepBatchOptions): StepBatch {
  return new OpenStepBatch(options)
}
