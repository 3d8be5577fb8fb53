import type { AnySession } from '@deepseek-ai/dsh-session'
import type { BodyStart, ToolCallEffects } from '@deepseek-ai/dsh-tools'
import { appendToolBegan } from '../log/append-tool-began.ts'
import type { MaybePromise } from '../base/maybe-async.ts'
import type { StepCalls } from './step-calls.ts'

/**
 * The `effects` every input of one step carries (one frozen object for the whole step): the
 * session's id as the idempotency scope (T49), and the hook the pipeline awaits before the body of
 * a tool with `effects: 'external'`, which records `tool/began` (T50). Such a tool never starts
 * before its message is recorded (run-streamed-step.ts), so its `tool/call` is in the log by then;
 * a call without one is refused, and its body does not run. The nested calls of a `run_code`
 * program get the same object (T63): their starts cite their own nested `tool/call`.
 */
export function createBodyStartRecorder(options: {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  readonly calls: StepCalls
  readonly idempotencyScope: string
  /** The attempt a call's body is on (1 unless the call is re-run on resume). */
  readonly attemptOf?: (callId: string) => number
}): ToolCallEffects {
  const { session, turn, step, calls, idempotencyScope, attemptOf } = options
  const onBodyStart = (start: BodyStart): MaybePromise<void> => {
    // T63: a nested call (a run_code program's) carries the step's effects too; its own tool/call,
    // recorded when the program's batch started it, is what its start cites
    const callSeq = (calls.byId(start.callId) ?? calls.nested(start.callId))?.callSeq
    if (callSeq === undefined)
      throw new Error(`the tool/call of "${start.callId}" is not recorded yet, so its start cannot be`)
    return appendToolBegan({
      session,
      callSeq,
      data: {
        turn,
        step,
        callId: start.callId,
        name: start.toolName,
        attempt: attemptOf?.(start.callId) ?? 1,
        idempotent: start.idempotent,
        idempotencyKey: start.idempotencyKey,
      },
    })
  }
  return Object.freeze({ idempotencyScope, onBodyStart })
}
