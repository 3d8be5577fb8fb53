import type { AnySession, AsyncSession, Session } from '@deepseek-ai/dsh-session'
import type { ToolExecutionInput, ToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import { appendToolCall } from './append-tool-call.ts'
import { appendToolResult } from './append-tool-result.ts'
import { createCallIdAllocator } from './create-call-id-allocator.ts'
import { findUnansweredCalls } from './find-unanswered-calls.ts'
import { findUnrecordedCalls } from './find-unrecorded-calls.ts'
import { inputOfOpenCall } from './input-of-open-call.ts'
import { andThen, inSequence, type MaybePromise } from '../base/maybe-async.ts'
import { readLastTurn } from './read-last-turn.ts'

function interrupted(input: ToolExecutionInput): string {
  return `Tool call "${input.name}" was interrupted: the process stopped before its result was recorded, and the session was resumed.`
}

/**
 * Makes a session left by a stopped process replayable again: every `tool/call` without a
 * `tool/result` gets a synthetic `INTERRUPTED` result, in log order; and when the last turn's last
 * assistant message has tool calls that were never recorded (the process stopped before the batch
 * began, or the session refused to record them and the turn ended with `error`), those calls are
 * recorded (citing that message, each under an id unique in the session, the model's kept as
 * `modelCallId` when it was taken) and answered the same way. Nested calls (a `run_code` program's,
 * stopped mid-program) are answered first, so each is answered before its outer call, as
 * `verifyToolPairs` requires; they stay out of the model's history like any nested call. Results
 * come from `scheduler.synthesize`, so `tools/result` observers see them. Returns how many calls it
 * answered: at once for a `Session`, as a promise (resolved once every event is durable) for an
 * `AsyncSession`.
 */
export function answerInterruptedCalls(options: {
  readonly session: Session
  readonly scheduler: ToolRuntimeScheduler
}): number
export function answerInterruptedCalls(options: {
  readonly session: AsyncSession
  readonly scheduler: ToolRuntimeScheduler
}): Promise<number>
export function answerInterruptedCalls(options: {
  readonly session: AnySession
  readonly scheduler: ToolRuntimeScheduler
}): MaybePromise<number>
export function answerInterruptedCalls(options: {
  readonly session: AnySession
  readonly scheduler: ToolRuntimeScheduler
}): MaybePromise<number> {
  const { session, scheduler } = options
  const events = session.events()
  const steps: (() => MaybePromise<unknown>)[] = []
  const open = findUnansweredCalls(events)
  const nestedFirst = [
    ...open.filter((call) => call.parentCallId !== undefined),
    ...open.filter((call) => call.parentCallId === undefined),
  ]
  for (const call of nestedFirst) {
    const input = inputOfOpenCall(call)
    steps.push(() =>
      appendToolResult({
        session,
        turn: call.turn,
        step: call.step,
        callId: call.callId,
        callSeq: call.seq,
        result: scheduler.synthesize(input, 'INTERRUPTED', interrupted(input)),
      }),
    )
  }

  const last = readLastTurn(events)
  if (last !== undefined) {
    const { turn, steps: step, lastAssistantSeq } = last
    const callIds = createCallIdAllocator(session)
    for (const model of findUnrecordedCalls(events, last)) {
      // recorded under an id unique in the session, as the loop would have (T28)
      const block = callIds.assign(model)
      const input: ToolExecutionInput = {
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
        turn,
        step,
      }
      steps.push(() =>
        andThen(
          appendToolCall({
            session,
            turn,
            step,
            block,
            ...(block.modelCallId === undefined ? {} : { modelCallId: block.modelCallId }),
            // T55: a text that is no JSON object is given back to the provider as {}
            ...(isObjectText(block.arguments) ? {} : { fix: { kind: 'replay' as const, arguments: '{}' } }),
            ...(lastAssistantSeq === undefined ? {} : { messageSeq: lastAssistantSeq }),
          }),
          (callSeq) =>
            appendToolResult({
              session,
              turn,
              step,
              callId: block.id,
              callSeq,
              result: scheduler.synthesize(input, 'INTERRUPTED', interrupted(input)),
            }),
        ),
      )
    }
  }
  return andThen(inSequence(steps), () => steps.length)
}

/** Whether `text` is a JSON object (or blank, which the pipeline reads as `{}`). */
function isObjectText(text: string): boolean {
  if (text.trim() === '') return true
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}
