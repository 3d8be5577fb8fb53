import { toolCallsOf } from '@deepseek-ai/dsh-llm'
import { callModel } from './call-model.ts'
import { modelCallEnd } from './model-call-end.ts'
import { awaitModelRetry } from './model-retry.ts'
import { runRecordedCalls } from './run-recorded-calls.ts'
import { stepApprovals } from './step-approvals.ts'
import type { StepReport, StepRun } from './step-types.ts'
import type { AssistantMessageEventData } from '../base/types.ts'

/**
 * A step without eager dispatch (a model without `stream`, or `eagerToolExecution: false`): the
 * whole message from `model.step` (called again after a retryable failure: nothing is recorded
 * before it answers), recorded, then its calls through the step's batch, each `tool/call` citing the
 * message. A pending approval pauses the step (`report.paused`). Each attempt ends with one
 * `model-call-end`, reported once what it answered is recorded.
 */
export async function runPlainStep(run: StepRun): Promise<StepReport> {
  const { runner, turn, step, request, signal, emit, onRecorded } = run
  const { model, session } = runner
  for (let attempt = 1; ; attempt++) {
    const startedAt = performance.now()
    const outcome = await callModel(model, request, signal)
    const endedAt = performance.now()
    let messageSeq: number | undefined
    if (outcome.kind === 'ok') {
      const { message, finishReason, usage } = outcome.response
      const assistant: AssistantMessageEventData = { turn, step, message, finishReason, usage }
      messageSeq = (await session.append('assistant/message', assistant)).seq
      onRecorded(message, usage)
    }
    emit(modelCallEnd({ turn, step, attempt, startedAt, endedAt, outcome }))
    if (outcome.kind === 'ok') {
      const calls = toolCallsOf(outcome.response.message)
      if (calls.length === 0) return { toolCalls: 0, concludesTurn: false, eager: undefined, stop: undefined }
      return runRecordedCalls(run, {
        messageSeq: messageSeq!,
        blocks: calls,
        approvals: stepApprovals(run),
        history: request.messages,
      })
    }
    const next = outcome.kind === 'error' ? await awaitModelRetry(run, attempt, outcome.error) : 'aborted'
    if (next === 'retry') continue
    const stop =
      next === 'give-up' && outcome.kind === 'error'
        ? { kind: 'failed' as const, error: outcome.error }
        : { kind: 'aborted' as const }
    return { toolCalls: 0, concludesTurn: false, eager: undefined, stop }
  }
}
