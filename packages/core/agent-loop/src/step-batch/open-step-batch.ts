import type { Context } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession, PendingApproval } from '@deepseek-ai/dsh-session'
import {
  createToolBatch,
  describeThrown,
  type ToolCallApproval,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolRuntime,
} from '@deepseek-ai/dsh-tools'
import { createCallIdAllocator } from '../log/create-call-id-allocator.ts'
import { AgentLoopError } from '../base/errors.ts'
import { createNestedCallRecorder } from './nested-call-recorder.ts'
import { createBodyStartRecorder } from './body-start-recorder.ts'
import { sessionIdOf } from '../log/session-id-of.ts'
import { createToolCallLedger, type LedgerMessage } from './tool-call-ledger.ts'
import { createStepCalls } from './step-calls.ts'
import { createToolCallProgress } from './tool-call-progress.ts'
import { checkCall, repairStepCall, type StepRepair } from './repair-step-call.ts'
import type { RecordedCallBlock } from '../log/create-call-id-allocator.ts'
import type { CallFix } from '../base/context-types.ts'
import type { AcceptContext, EagerDispatchFigures, ToolCallProgressEvent } from '../base/types.ts'

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
 * `tool/call` and its `tool/result` (`createNestedCallRecorder`, T33). Calls are added as the model completes them; `close` ends intake; `finish` waits for
 * every result and hands deferred contexts over in model order (T27).
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
  readonly approvals?: StepApprovals
  /** Broken calls are offered to the repair hook before they run (T54, T55); without it nothing is checked. */
  readonly repair?: StepRepair
}): StepBatch {
  const { approvals } = options
  const { ctx, tools, session, turn, step, signal, onEvent, where } = options
  /** The step's calls as recorded (session ids), in model order: one record each. */
  const calls = createStepCalls()
  const { list } = calls
  /** Calls added but still waiting for their repair (or for one before them). */
  let pendingRepairs = 0
  const callIds = createCallIdAllocator(session)
  const logger = ctx.logger
  const logLate = (index: number, outcome: unknown, error: unknown): void => {
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
  // What the committed calls deferred, for an approval request that pauses the step after them.
  const accepted: string[] = []
  let concludes = false
  let paused: PendingApproval | undefined
  const onSuspend = (index: number, reason: string | undefined): void | Promise<void> => {
    if (approvals === undefined) throw new Error(`${where}: a call was suspended without durable approvals`)
    const extra = {
      reason,
      contexts: [...approvals.carried.contexts, ...accepted],
      concludesTurn: approvals.carried.concludesTurn || concludes,
    }
    const done = (requestSeq: number): void => {
      const { block, callSeq } = list[index]!
      paused = Object.freeze({
        turn,
        step,
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
        reason,
        requestSeq,
        callSeq: callSeq!,
      })
      approvals.onRequested(paused, index)
    }
    const seq = ledger.recordApprovalRequest(index, extra)
    return typeof seq === 'number' ? done(seq) : seq.then(done)
  }
  const progress = createToolCallProgress({
    turn,
    step,
    calls,
    tools,
    logger,
    onEvent,
    streaming: options.eager !== undefined,
  })
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
    ...(signal === undefined ? {} : { signal }),
    ...(options.eager === undefined ? {} : { eager: options.eager }),
    hooks: {
      onQueued: (index) => progress.queued(index),
      onStart: (index, _input, mode) => {
        const recorded = ledger.recordCall(index, mode)
        if (recorded === undefined) return progress.started(index, mode)
        return recorded.then(() => progress.started(index, mode))
      },
      onSettled: (index) => progress.settled(index),
      onSuspend: (index, _input, reason) => onSuspend(index, reason),
      // after the call's nested calls (a run_code program's) have their results
      onCommit: (index, _input, result) => {
        if (approvals !== undefined) {
          const contexts = result.additionalContexts
          if (contexts !== undefined) accepted.push(...contexts)
          if (!result.isError && result.concludesTurn === true) concludes = true
        }
        return nested.afterNested(list[index]!.block.id, () => {
          const recorded = ledger.recordResult(index, result)
          if (recorded === undefined) return progress.committed(index, result)
          return recorded.then(() => progress.committed(index, result))
        })
      },
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

  const enqueue = (block: RecordedCallBlock, fix: CallFix | undefined): void => {
    const index = list.length
    const recorded: RecordedCallBlock = fix === undefined ? block : { ...block, fix }
    calls.add(recorded)
    const ran = fix?.kind === 'repaired' ? fix : block
    batch.add({
      callId: block.id,
      name: ran.name,
      arguments: ran.arguments,
      turn,
      step,
      ...(approvals === undefined ? {} : { approval: approvals.forCall(block, index) }),
      nestedCallHooks: nested.hooks,
      effects,
    })
  }
  const { repair } = options
  /**
   * Calls waiting for a repair, and every call after them (model order): an asynchronous repair
   * holds the later calls back rather than letting them overtake it. Undefined while none waits.
   */
  let repairing: Promise<void> | undefined
  const afterRepairs = (then: () => void): void => {
    repairing = (repairing ?? Promise.resolve()).then(then).then(undefined, (error: unknown) => {
      logger.error(`${where}: a call could not be handed to the batch after a repair`, { error })
    })
  }

  return {
    add(model) {
      const index = list.length + (repairing === undefined ? 0 : pendingRepairs)
      const firstCallId = approvals?.firstCallId
      const block =
        index === 0 && firstCallId !== undefined
          ? callIds.recorded(model, firstCallId)
          : callIds.assign(model)
      if (index === 0 && approvals?.firstCallSeq !== undefined) {
        // a paused step's first call is in the log already: it runs as it was recorded then
        enqueue(block, recordedFix(session, approvals.firstCallSeq))
        return
      }
      const problem = repair === undefined ? undefined : checkCall(tools, block)
      if (problem === undefined && repairing === undefined) return enqueue(block, undefined)
      pendingRepairs++
      afterRepairs(async () => {
        const fix =
          problem === undefined
            ? undefined
            : await repairStepCall({ tools, block, problem, repair: repair!, logger, where })
        pendingRepairs--
        enqueue(block, fix)
      })
    },
    streamEnded: (at) => progress.streamEnded(at),
    messageRecorded: (seq) => ledger.messageRecorded(seq),
    messageRefused: () => ledger.messageRefused(),
    close: () => (repairing === undefined ? batch.close() : afterRepairs(() => batch.close())),
    async finish(acceptContext) {
      const outcome = await batch.outcome
      stopProgress?.()
      await ledger.settle()
      const eager = progress.figures()
      progress.close()
      if (outcome.kind === 'failed') {
        // The batch already offered every recorded call a result (its real one, or SCHEDULER_FAILED)
        // through onCommit, in model order; what the session still lacks is reported, not retried.
        const { error } = outcome
        const unanswered = calls.unanswered()
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
      if (outcome.kind === 'suspended')
        return { results: [...outcome.results], concludesTurn: false, eager, paused: paused! }
      const { results } = outcome
      let concludesTurn = false
      results.forEach((result, index) => {
        if (!result.isError && result.concludesTurn === true) concludesTurn = true
        const { block } = list[index]!
        for (const text of result.additionalContexts ?? [])
          acceptContext(text, { callId: block.id, toolName: block.name })
      })
      return { results: [...results], concludesTurn, eager }
    },
  }
}

/** What a recorded `tool/call` says the loop did to the call (a paused step's first call, read back). */
function recordedFix(session: AnySession, callSeq: number): CallFix | undefined {
  const [event] = session.read({ afterSeq: callSeq - 1, types: ['tool/call'] })
  const data =
    event?.seq === callSeq ? (event.data as { repaired?: unknown; replayArguments?: unknown }) : undefined
  const repaired = data?.repaired as { name?: unknown; arguments?: unknown; by?: unknown } | undefined
  if (typeof repaired?.name === 'string' && typeof repaired.arguments === 'string')
    return { kind: 'repaired', name: repaired.name, arguments: repaired.arguments, by: String(repaired.by) }
  if (typeof data?.replayArguments === 'string') return { kind: 'replay', arguments: data.replayArguments }
  return undefined
}
