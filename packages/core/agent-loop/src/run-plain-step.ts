import { toolCallsOf } from '@deepseek-ai/dsh-llm'
import { callModel } from './call-model.ts'
import { executeToolCalls } from './execute-tool-calls.ts'
import { recordToolContexts } from './record-tool-contexts.ts'
import type { StepReport, StepRun } from './step-types.ts'
import type { AssistantMessageEventData } from './types.ts'

/**
 * A step without eager dispatch (a model without `stream`, or `eagerToolExecution: false`): the
 * whole message from `model.step`, recorded, then its calls through `executeToolCalls`, each
 * `tool/call` citing the message.
 */
export async function runPlainStep(run: StepRun): Promise<StepReport> {
  const { runner, turn, step, request, signal, emit, onRecorded } = run
  const { ctx, model, session } = runner
  const startedAt = performance.now()
  const outcome = await callModel(model, request, signal)
  const endedAt = performance.now()
  const durationMs = endedAt - startedAt
  if (outcome.kind !== 'ok') {
    emit({
      type: 'model-call-end',
      turn,
      step,
      at: endedAt,
      durationMs,
      outcome: outcome.kind,
      ...(outcome.kind === 'error' ? { error: outcome.error } : {}),
    })
    const stop =
      outcome.kind === 'error'
        ? { kind: 'failed' as const, error: outcome.error }
        : { kind: 'aborted' as const }
    return { toolCalls: 0, concludesTurn: false, eager: undefined, stop }
  }
  const { message, finishReason, usage } = outcome.response
  const assistant: AssistantMessageEventData = { turn, step, message, finishReason, usage }
  const messageSeq = (await session.append('assistant/message', assistant)).seq
  onRecorded(message, usage)
  emit({
    type: 'model-call-end',
    turn,
    step,
    at: endedAt,
    durationMs,
    outcome: 'ok',
    message,
    finishReason,
    usage,
  })

  const calls = toolCallsOf(message)
  if (calls.length === 0) return { toolCalls: 0, concludesTurn: false, eager: undefined, stop: undefined }
  const inbox: string[] = []
  const batch = await executeToolCalls({
    ctx,
    turn,
    step,
    toolCalls: calls,
    messageSeq,
    ...(signal === undefined ? {} : { signal }),
    acceptContext: (text) => void inbox.push(text),
    onEvent: emit,
  })
  await recordToolContexts({ session, turn, step, inbox })
  return { toolCalls: calls.length, concludesTurn: batch.concludesTurn, eager: undefined, stop: undefined }
}
