import {
  toolCallsOf,
  type AssistantMessage,
  type FinishReason,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import type { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from '../base/errors.ts'
import { openStepBatch, type StepBatch } from '../step-batch/open-step-batch.ts'
import { recordToolContexts } from '../log/record-tool-contexts.ts'
import { modelCallEnd } from './model-call-end.ts'
import { awaitModelRetry } from './model-retry.ts'
import { ZERO_USAGE } from '../log/session-records.ts'
import { stepApprovals } from './step-approvals.ts'
import type { StepReport, StepRun } from './step-types.ts'
import { partialContent, streamModel, type StreamOutcome } from './stream-model.ts'
import type { AssistantMessageEventData } from '../base/types.ts'

/** Finish reasons that say the model's output was cut off: its calls are not what it meant to send. */
const CUT_OFF: readonly FinishReason[] = ['length', 'content-filter', 'error']

/**
 * Eager dispatch (T40): a tool whose definition says `eager: false`, or `effects: 'external'` (its
 * `tool/began` must follow its `tool/call`, T50), never starts before the model has finished its
 * message, whatever its mode.
 */
function mayStartEarly(tools: ToolRuntime, name: string): boolean {
  const definition = tools.get(name)
  return definition?.eager !== false && definition?.effects !== 'external'
}

function truncated(run: StepRun, finishReason: FinishReason, calls: number): AgentLoopError {
  return new AgentLoopError({
    code: 'TRUNCATED_RESPONSE',
    kind: 'system',
    message:
      `agent turn ${run.turn} step ${run.step}: the model's output was cut off (finish reason "${finishReason}") ` +
      `after ${calls} tool call(s); calls that had started were aborted and the others were not run. ` +
      'Raise the model’s output limit (or shorten what it is asked to write) and run the turn again',
  })
}

/** What the step records as its assistant message, and why the turn must stop after it (if it must). */
function settleStream(
  run: StepRun,
  streamed: StreamOutcome,
): {
  readonly message: AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: AssistantMessageEventData['usage']
  readonly stop: StepReport['stop']
} {
  if (streamed.kind === 'ok') {
    const { message, finishReason, usage } = streamed.response
    const calls = toolCallsOf(message).length
    const stop =
      calls > 0 && CUT_OFF.includes(finishReason)
        ? { kind: 'failed' as const, error: truncated(run, finishReason, calls) }
        : undefined
    return { message, finishReason, usage, stop }
  }
  // Exactly the calls that were complete, plus what the model said before the stream ended.
  const message: AssistantMessage = { role: 'assistant', content: partialContent(streamed.partial) }
  return streamed.kind === 'aborted'
    ? { message, finishReason: 'other', usage: ZERO_USAGE, stop: { kind: 'aborted' } }
    : { message, finishReason: 'error', usage: ZERO_USAGE, stop: { kind: 'failed', error: streamed.error } }
}

/**
 * A step with eager dispatch (T40): `model.stream`, each complete `tool-call` part handed to the
 * step's batch at once. A parallel-safe call may start while the model still streams (policy in
 * model order); exclusive calls and tools declaring `eager: false` wait for the end of the stream.
 * Nothing of the step is recorded before its assistant message: when the stream has ended the
 * message is recorded (the finish message, or the complete calls and what the model said before a
 * failure or abort), then the `tool/call` of every call that started, then results in model order.
 * A stream that failed, was aborted or was cut off (`length`, `content-filter`, `error`) aborts the
 * calls that started (they drain, T38) and answers the rest with `ABORTED_BEFORE_DISPATCH`.
 */
export async function runStreamedStep(run: StepRun): Promise<StepReport> {
  const { runner, turn, step, request, signal, emit, listening, onRecorded } = run
  const { ctx, model, session, config } = runner
  const tools = ctx.tools
  // The batch's own signal: the turn's abort reaches it, and so does a failed or cut-off stream.
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(signal?.reason)
  if (signal?.aborted) controller.abort(signal.reason)
  else signal?.addEventListener('abort', onAbort, { once: true })
  let batch: StepBatch | undefined
  let startedAt = performance.now()
  let attempt = 1
  try {
    let streamed: StreamOutcome
    for (;;) {
      streamed = await streamModel({
        model,
        request,
        signal,
        onToolCall: (call: ToolCallBlock) => {
          batch ??= openStepBatch({
            ctx,
            tools,
            session,
            maxParallel: config.maxParallelToolCalls,
            turn,
            step,
            signal: controller.signal,
            onEvent: listening ? emit : undefined,
            recordTimings: true,
            message: { kind: 'pending' },
            eager: (input) => mayStartEarly(tools, input.name),
            where: `agent turn ${turn} step ${step}`,
            approvals: stepApprovals(run),
            repair: { hook: runner.context.repairToolCall, history: request.messages },
          })
          batch.add(call)
        },
        onToolInput: (notice) => {
          // one notice per streamed chunk of a call's arguments: built only for a listener
          if (!listening) return
          const at = performance.now()
          const common = { turn, step, at, callId: notice.id, name: notice.name, index: notice.index }
          switch (notice.kind) {
            case 'start':
              return emit({ type: 'tool-input-start', ...common })
            case 'delta':
              return emit({ type: 'tool-input-delta', ...common, delta: notice.delta, text: notice.text })
            case 'end':
              return emit({ type: 'tool-input-end', ...common, text: notice.text, complete: notice.complete })
            default: {
              const never: never = notice
              return never
            }
          }
        },
      })
      // Retry only a stream that failed before any tool call was complete: nothing of the step
      // was recorded, no call was queued or started, and what it streamed was never recorded.
      if (streamed.kind !== 'error' || batch !== undefined) break
      emit(modelCallEnd({ turn, step, attempt, startedAt, endedAt: streamed.endedAt, outcome: streamed }))
      const next = await awaitModelRetry(run, attempt, streamed.error)
      if (next !== 'retry') {
        const stop =
          next === 'aborted'
            ? { kind: 'aborted' as const }
            : { kind: 'failed' as const, error: streamed.error }
        return { toolCalls: 0, concludesTurn: false, eager: undefined, stop }
      }
      attempt++
      startedAt = performance.now()
    }
    const { endedAt } = streamed
    batch?.streamEnded(endedAt)
    emit(modelCallEnd({ turn, step, attempt, startedAt, endedAt, outcome: streamed }))
    const { message, finishReason, usage, stop } = settleStream(run, streamed)
    if (batch === undefined) {
      // No call was complete: a failed or aborted stream leaves nothing, as a failed `step` would.
      if (streamed.kind !== 'ok') return { toolCalls: 0, concludesTurn: false, eager: undefined, stop }
      const assistant: AssistantMessageEventData = { turn, step, message, finishReason, usage }
      await session.append('assistant/message', assistant)
      onRecorded(message, usage)
      return { toolCalls: 0, concludesTurn: false, eager: undefined, stop }
    }

    if (stop?.kind === 'failed') controller.abort(stop.error)
    let messageSeq: number
    try {
      const assistant: AssistantMessageEventData = { turn, step, message, finishReason, usage }
      messageSeq = (await session.append('assistant/message', assistant)).seq
    } catch (error) {
      // Nothing of this step can be recorded: stop its calls, let them drain, then fail the turn.
      batch.messageRefused()
      controller.abort(error)
      batch.close()
      await batch.finish(() => undefined).catch(() => undefined)
      throw error
    }
    onRecorded(message, usage)
    batch.messageRecorded(messageSeq)
    batch.close()
    const inbox: string[] = []
    const done = await batch.finish((text) => void inbox.push(text))
    if (done.paused !== undefined)
      return {
        toolCalls: toolCallsOf(message).length,
        concludesTurn: false,
        eager: done.eager,
        stop,
        paused: done.paused,
      }
    await recordToolContexts({ session, turn, step, inbox })
    return {
      toolCalls: toolCallsOf(message).length,
      concludesTurn: done.concludesTurn,
      eager: done.eager,
      stop,
      results: done.results,
    }
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}
