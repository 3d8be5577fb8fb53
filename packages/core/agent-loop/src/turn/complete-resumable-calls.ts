import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import type {
  ToolCallEffects,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolRuntime,
  ToolRuntimeScheduler,
} from '@deepseek-ai/dsh-tools'
import { appendToolBegan } from '../log/append-tool-began.ts'
import { appendToolCall } from '../log/append-tool-call.ts'
import { appendToolResult } from '../log/append-tool-result.ts'
import { createCallIdAllocator } from '../log/create-call-id-allocator.ts'
import { findUnansweredCalls, type UnansweredCall } from '../log/find-unanswered-calls.ts'
import { findUnrecordedCalls } from '../log/find-unrecorded-calls.ts'
import { inputOfOpenCall } from '../log/input-of-open-call.ts'
import { readLastTurn } from '../log/read-last-turn.ts'
import { recordToolContexts } from '../log/record-tool-contexts.ts'
import { sessionIdOf } from '../log/session-id-of.ts'
import { interruptedProgramMessage } from './interrupted-program.ts'
import { resumeVerdict } from './resume-verdict.ts'

function interrupted(
  scheduler: ToolRuntimeScheduler,
  input: ToolExecutionInput,
  message = `Tool call "${input.name}" was interrupted: the process stopped before its result was recorded, and the session was resumed.`,
): ToolExecutionResult {
  return scheduler.synthesize(input, 'INTERRUPTED', message)
}

/**
 * Codes a re-attached call (T64) can get before anything of its body is known (the tool is not
 * callable any more, its arguments no longer pass, dispatch refused it): none of them may claim that
 * the call did not run, so such an answer becomes `INTERRUPTED`.
 */
const NOT_COLLECTED = new Set([
  'UNKNOWN_TOOL',
  'INVALID_ARGUMENTS',
  'PIPELINE_FAILED',
  'ABORTED_BEFORE_DISPATCH',
])

function beganCounts(events: readonly SessionEvent[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const event of events) {
    if (event.type !== 'tool/began') continue
    const callId = (event.data as { callId?: unknown } | null)?.callId
    if (typeof callId === 'string') counts.set(callId, (counts.get(callId) ?? 0) + 1)
  }
  return counts
}

interface OpenCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string
  readonly turn: number
  readonly step: number
  /** Seq of its `tool/call`; undefined for a call of the last message that was never recorded. */
  readonly callSeq: number | undefined
  readonly parentCallId?: string | undefined
  readonly modelCallId?: string
  readonly messageSeq?: number
}

/**
 * Resuming a session that stopped mid-step, before `answerInterruptedCalls`. First every nested call
 * without a result (a `run_code` program's, T63), then every top-level call without one, then every
 * call of the last message that was never recorded, in log and model order, gets its
 * `resumeVerdict`: it is run (a run goes through the whole pipeline, `tools.execute`, with the
 * call's own idempotency key, T49, and records its attempt as `tool/began` before the body, T50; for
 * an idempotent tool without `effects: 'external'` before the call), re-attached (T64: the pipeline
 * with `effects.reattachOnly`, which starts no body; remote dispatch answers with the outcome kept
 * under the key) or answered `INTERRUPTED`. Each answer is recorded as its `tool/result`; what a
 * top-level call deferred becomes the next step's message. A `run_code` call whose program made
 * calls is not run again: it is `INTERRUPTED`, saying what each of its calls did. Returns how many
 * calls it ran.
 */
export async function completeResumableCalls(options: {
  readonly session: AnySession
  readonly tools: ToolRuntime
  readonly scheduler: ToolRuntimeScheduler
}): Promise<number> {
  const { session, tools, scheduler } = options
  const events = session.events()
  const open = findUnansweredCalls(events)
  const last = readLastTurn(events)
  const unrecorded = findUnrecordedCalls(events, last)
  if (open.length === 0 && unrecorded.length === 0) return 0
  const began = beganCounts(events)
  const scope = sessionIdOf(session)
  const resumedFrom = (events.at(-1)?.seq ?? 0) + 1
  let ran = 0

  /** The call's answer on resume, by its verdict. */
  const answer = async (call: OpenCall, callSeq: number): Promise<ToolExecutionResult> => {
    const input = inputOfOpenCall(call)
    const tool = tools.get(call.name)
    const verdict = resumeVerdict(tool, began.get(call.callId) ?? 0)
    switch (verdict.kind) {
      case 'interrupted':
        return interrupted(scheduler, input)
      case 'reattach': {
        const effects: ToolCallEffects = Object.freeze({ idempotencyScope: scope, reattachOnly: true })
        const result = await tools.execute({ ...input, effects })
        const code = result.isError ? result.error.info?.code : undefined
        return code !== undefined && NOT_COLLECTED.has(code) ? interrupted(scheduler, input) : result
      }
      case 'run': {
        const markStart = (): Promise<void> =>
          Promise.resolve(
            appendToolBegan({
              session,
              callSeq,
              data: {
                turn: call.turn,
                step: call.step,
                callId: call.callId,
                name: call.name,
                attempt: verdict.attempt,
                idempotent: tool?.idempotent === true,
                idempotencyKey: `${scope}:${call.callId}`,
              },
            }),
          )
        // a tool with external effects records its start right before the body (the pipeline's
        // hook); another idempotent one before the call, so its attempts are counted all the same
        if (tool?.effects !== 'external') await markStart()
        const effects: ToolCallEffects = Object.freeze({ idempotencyScope: scope, onBodyStart: markStart })
        ran += 1
        return tools.execute({ ...input, effects })
      }
      default: {
        const never: never = verdict
        return never
      }
    }
  }

  // nested calls first, each answered before its outer call (verifyToolPairs)
  for (const call of open.filter((entry) => entry.parentCallId !== undefined)) {
    const result = await answer({ ...call, callSeq: call.seq }, call.seq)
    await appendToolResult({
      session,
      turn: call.turn,
      step: call.step,
      callId: call.callId,
      callSeq: call.seq,
      result,
    })
  }

  const calls: OpenCall[] = open
    .filter((entry) => entry.parentCallId === undefined)
    .map((entry: UnansweredCall) => ({ ...entry, callSeq: entry.seq }))
  if (last !== undefined && unrecorded.length > 0) {
    const callIds = createCallIdAllocator(session)
    for (const model of unrecorded) {
      const block = callIds.assign(model)
      calls.push({
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
        turn: last.turn,
        step: last.steps,
        callSeq: undefined,
        ...(block.modelCallId === undefined ? {} : { modelCallId: block.modelCallId }),
        ...(last.lastAssistantSeq === undefined ? {} : { messageSeq: last.lastAssistantSeq }),
      })
    }
  }

  const inbox: string[] = []
  let where: { turn: number; step: number } | undefined
  for (const call of calls) {
    const callSeq =
      call.callSeq ??
      (await appendToolCall({
        session,
        turn: call.turn,
        step: call.step,
        block: { type: 'tool-call', id: call.callId, name: call.name, arguments: call.arguments },
        ...(call.modelCallId === undefined ? {} : { modelCallId: call.modelCallId }),
        ...(call.messageSeq === undefined ? {} : { messageSeq: call.messageSeq }),
        idempotencyKey: `${scope}:${call.callId}`,
      }))
    // T63: a program that made calls cannot go on; the model learns what each of them did
    const program =
      call.callSeq === undefined
        ? undefined
        : interruptedProgramMessage({
            events: session.events(),
            callId: call.callId,
            name: call.name,
            resumedFrom,
          })
    const result =
      program === undefined
        ? await answer(call, callSeq)
        : interrupted(scheduler, inputOfOpenCall(call), program)
    if (program === undefined && result.additionalContexts !== undefined)
      inbox.push(...result.additionalContexts)
    await appendToolResult({
      session,
      turn: call.turn,
      step: call.step,
      callId: call.callId,
      callSeq,
      result,
    })
    where = { turn: call.turn, step: call.step }
  }
  if (where !== undefined) await recordToolContexts({ session, turn: where.turn, step: where.step, inbox })
  return ran
}
