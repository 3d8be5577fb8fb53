import type { Context } from '@deepseek-ai/dsh-context'
import { textOf, toolCallsOf, type AssistantMessage, type TokenUsage } from '@deepseek-ai/dsh-llm'
import type { PendingApproval } from '@deepseek-ai/dsh-session'
import { continuePausedStep, type PausedStep } from '../step/continue-paused-step.ts'
import { buildStepRequest, rebuildRecordedStep } from '../step/build-step-request.ts'
import { recordedPreparation } from '../log/recorded-preparation.ts'
import { firstStop } from './stop-conditions.ts'
import { runPlainStep } from '../step/run-plain-step.ts'
import { runStreamedStep } from '../step/run-streamed-step.ts'
import { sessionGrants } from '../log/session-call-index.ts'
import { addUsage } from '../log/session-records.ts'
import { commitSession } from '../log/commit-session.ts'
import type { StepReport, StepRun, TurnRunner } from '../step/step-types.ts'

export type { TurnRunner } from '../step/step-types.ts'
import type {
  AgentEvent,
  StoppedBy,
  TurnEndEventData,
  TurnEndReason,
  TurnOutcomeReason,
  TurnResult,
} from '../base/types.ts'

/** Where a turn starts: a new turn (0 steps) or an unfinished one read back from the session. */
export interface TurnStart {
  readonly turn: number
  readonly resumed: boolean
  readonly steps: number
  readonly lastMessage: AssistantMessage | undefined
  readonly usage: TokenUsage
  /** Session writes that open the turn; a failure there ends the turn with `error`. */
  readonly prelude?: () => unknown
  /** Set when the turn already has its answer and only needs its `turn/end`. */
  readonly done?: TurnEndReason
  /** Set when the turn continues a step that paused at an approval, now answered (durable approvals). */
  readonly paused?: PausedStep
}

function failed(error: unknown): { failed: true; error: unknown } {
  return { failed: true, error }
}

/**
 * The step loop (docs/spec.md §7): build the request from the session, call the model (streamed,
 * with eager dispatch, T40, when it can stream), record its message, run its tool calls, feed
 * deferred contexts into the next step, and stop when the model calls no tool, a result concludes
 * the turn, a `stopWhen` condition says so (T46), `maxSteps` is reached, the signal aborts, or
 * something fails. `prepareStep` (T43) may change a step's model, system, tools, tool choice and
 * provider options; a step's own scope is disposed when the turn ends. Always records `turn/end`
 * (when the session lets it); rejects with the failure for reason `error`.
 */
export async function runTurn(
  runner: TurnRunner,
  start: TurnStart,
  options: {
    readonly signal: AbortSignal | undefined
    readonly emit: (event: AgentEvent) => void
    /** Someone listens to `emit`: the steps build their tool-call events only then. */
    readonly listening: boolean
  },
): Promise<TurnResult> {
  const { ctx, session, config } = runner
  const { signal, emit, listening } = options
  const { turn } = start
  const turnStartedAt = performance.now()
  let steps = start.steps
  let lastMessage = start.lastMessage
  let usage = start.usage
  let reason: TurnEndReason | undefined = start.done
  let failure: { failed: true; error: unknown } | undefined
  let paused: PendingApproval | undefined
  let stoppedBy: StoppedBy | undefined
  const stepScopes: Context[] = []

  emit({ type: 'turn-start', turn, at: turnStartedAt, resumed: start.resumed })
  if (start.paused !== undefined) {
    const { step, firstCallId, answer } = start.paused
    emit({
      type: 'approval-answered',
      turn,
      step,
      at: performance.now(),
      callId: firstCallId,
      answer: answer.answer,
    })
  }
  try {
    await start.prelude?.()
    // `session` answers recorded earlier answer later asks in this turn (durable approvals)
    const grants = sessionGrants(session, session.events())
    /** What a step's report means for the turn; true when the turn stops here. */
    const settleStep = async (step: number, stepStartedAt: number, report: StepReport): Promise<boolean> => {
      const stepEndedAt = performance.now()
      emit({
        type: 'step-end',
        turn,
        step,
        at: stepEndedAt,
        durationMs: stepEndedAt - stepStartedAt,
        toolCalls: report.toolCalls,
        concludesTurn: report.concludesTurn,
        ...(report.eager === undefined ? {} : { eager: report.eager }),
      })
      // A recorded pause wins: the log waits for the answer, whatever else the step met.
      if (report.paused !== undefined) {
        paused = report.paused
        return true
      }
      if (report.stop?.kind === 'failed') throw report.stop.error
      if (report.stop?.kind === 'aborted') {
        reason = 'aborted'
        return true
      }
      if (report.toolCalls === 0) reason = 'completed'
      else if (report.concludesTurn && !signal?.aborted) reason = 'concluded'
      // T46: a step that would go on, its results committed, meets the stop conditions in order
      else if (runner.stopWhen.length > 0 && lastMessage !== undefined && !signal?.aborted) {
        stoppedBy = await firstStop(runner.stopWhen, {
          turn,
          steps,
          step: {
            step,
            message: lastMessage,
            toolCalls: toolCallsOf(lastMessage),
            results: report.results ?? [],
          },
        })
        if (stoppedBy !== undefined) reason = 'stopped'
      }
      return reason !== undefined
    }
    if (start.paused !== undefined && reason === undefined) {
      const step = start.paused.step
      const stepStartedAt = performance.now()
      emit({ type: 'step-start', turn, step, at: stepStartedAt })
      // T43: the step already ran; it continues under what was recorded for it
      const record = recordedPreparation(session.events(), turn, step)
      const rebuilt = rebuildRecordedStep(runner, record)
      if (rebuilt.scope !== undefined) stepScopes.push(rebuilt.scope)
      if (record !== undefined)
        emit({ type: 'step-prepared', turn, step, at: performance.now(), prepared: record, fromRecord: true })
      const report = await continuePausedStep(
        { runner: rebuilt.runner, turn, step, signal, emit, listening, grants },
        start.paused,
      )
      await settleStep(step, stepStartedAt, report)
    }
    while (reason === undefined && paused === undefined) {
      if (signal?.aborted) {
        reason = 'aborted'
        break
      }
      if (steps >= config.maxSteps) {
        reason = 'max-steps'
        break
      }
      const step = steps + 1
      const stepStartedAt = performance.now()
      emit({ type: 'step-start', turn, step, at: stepStartedAt })
      const built = await buildStepRequest(runner, { turn, step, signal })
      if (built.scope !== undefined) stepScopes.push(built.scope)
      if (built.prepared !== undefined)
        emit({
          type: 'step-prepared',
          turn,
          step,
          at: performance.now(),
          prepared: built.prepared,
          fromRecord: false,
        })
      const { request } = built
      emit({
        type: 'model-call-start',
        turn,
        step,
        at: performance.now(),
        attempt: 1,
        messages: request.messages.length,
        tools: request.tools.length,
      })
      // every field named, not `{ ...fields, runner }`: a spread followed by more properties cost about
      // 1 µs per step on Node 20 (DEVELOPERS.md)
      const run: StepRun = {
        runner: built.runner,
        turn,
        step,
        request,
        signal,
        emit,
        listening,
        grants,
        onRecorded: (message, stepUsage) => {
          steps = step
          lastMessage = message
          usage = addUsage(usage, stepUsage)
        },
      }
      // A commit point (T59): what the turn recorded so far is durable before the model is called.
      commitSession(session)
      const streaming = runner.eagerToolExecution && typeof built.runner.model.stream === 'function'
      const report = streaming ? await runStreamedStep(run) : await runPlainStep(run)
      if (await settleStep(step, stepStartedAt, report)) break
    }
  } catch (error) {
    failure = failed(error)
    reason = 'error'
  }

  const pending = paused as PendingApproval | undefined
  const final: TurnOutcomeReason =
    pending !== undefined && failure === undefined ? 'paused' : (reason ?? 'error')
  try {
    // a paused turn has not ended: resume continues it once the approval is answered
    if (final !== 'paused') {
      const data: TurnEndEventData = {
        turn,
        reason: final,
        steps,
        ...(final === 'stopped' && stoppedBy !== undefined ? { stoppedBy } : {}),
      }
      await session.append('turn/end', data)
    }
  } catch (error) {
    // The turn's own failure matters more than the missing turn/end; resume() closes the turn later.
    if (failure === undefined) failure = failed(error)
    else ctx.logger.error(`agent turn ${turn}: could not record turn/end after the turn failed`, { error })
  }
  try {
    // A commit point (T59): whatever the turn ended with (or paused at) is durable before it returns.
    commitSession(session)
  } catch (error) {
    if (failure === undefined) failure = failed(error)
    else ctx.logger.error(`agent turn ${turn}: could not commit the session after the turn failed`, { error })
  }
  const result: TurnResult = Object.freeze({
    turn,
    reason: failure === undefined ? final : 'error',
    steps,
    message: lastMessage,
    text: lastMessage === undefined ? '' : textOf(lastMessage.content),
    usage,
    ...(final === 'paused' && pending !== undefined ? { pendingApproval: pending } : {}),
    ...(final === 'stopped' && failure === undefined && stoppedBy !== undefined ? { stoppedBy } : {}),
  })
  for (const scope of stepScopes) scope.dispose()
  const endedAt = performance.now()
  emit({
    type: 'turn-end',
    turn,
    at: endedAt,
    durationMs: endedAt - turnStartedAt,
    result,
    ...(failure === undefined ? {} : { error: failure.error }),
  })
  if (failure !== undefined) throw failure.error
  return result
}
