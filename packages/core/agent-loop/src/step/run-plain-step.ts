import { toolCallsOf } from '@deepseek-ai/dsh-llm'
import { callModel, type ModelOutcome } from './call-model.ts'
import { awaitModelRetry } from './model-retry.ts'
import { runRecordedCalls } from './run-recorded-calls.ts'
import { stepApprovals } from './step-approvals.ts'
import type { StepReport, StepRun } from './step-types.ts'
import type { AssistantMessageEventData } from '../base/types.ts'

/**
 * A step without eager dispatch (a model without `stream`, or `eagerToolExecution: false`): the
 * whole message from `model.step` (called again after a retryable failure: nothing is recorded
 * before it answers), recorded, then its calls through the step's batch, each `tool/call` citing the
 * message. A pending approval pauses the step (`report.paused`).
 */
export async function runPlainStep(run: StepRun): Promise<StepReport> {
  const { runner, turn, step, request, signal, emit, onRecorded } = run
  const { model, session } = runner
  let attempt = 1
  let outcome: ModelOutcome
  let startedAt: number
  let endedAt: number
  for (;;) {
    startedAt = performance.now()
    outcome = await callModel(model, request, signal)
    endedAt = performance.now()
    if (outcome.kind === 'ok') break
    emit({
      type: 'model-call-end',
      turn,
      step,
      at: endedAt,
      attempt,
      durationMs: endedAt - startedAt,
      outcome: outcome.kind,
      ...(outcome.kind === 'error' ? { error: outcome.error } : {}),
    })
    const next = outcome.kind === 'error' ? await awaitModelRetry(run, attempt, outcome.error) : 'aborted'
    if (next === 'retry') {
      attempt++
      continue
    }
    const stop =
      next === 'give-up' && outcome.kind === 'error'
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
    attempt,
    durationMs: endedAt - startedAt,
    outcome: 'ok',
    message,
    finishReason,
    usage,
  })

  const calls = toolCallsOf(message)
  if (calls.length === 0) return { toolCalls: 0, concludesTurn: false, eager: undefined, stop: undefined }
  return runRecordedCalls(run, {
    messageSeq,
    blocks: calls,
    approvals: stepApprovals(run),
    history: request.messages,
  })
}
