import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import { inputOfOpenCall } from '../log/input-of-open-call.ts'
import type {
  AnyToolDefinition,
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
import { readLastTurn } from '../log/read-last-turn.ts'
import { recordToolContexts } from '../log/record-tool-contexts.ts'
import { sessionIdOf } from '../log/session-id-of.ts'

/**
 * How many times, in all, the body of an idempotent call may begin before a resume stops running it
 * again and answers `INTERRUPTED` (T51): a body that crashes its process every time must not turn
 * every resume into another crash.
 */
export const RESUME_ATTEMPTS = 3

/** What resuming does with one call that has no result. */
export type ResumeVerdict =
  { readonly kind: 'run'; readonly attempt: number } | { readonly kind: 'interrupted' }

/**
 * T50/T51: a call of a tool with `effects: 'external'` whose body never began (no `tool/began`) is
 * run; an `idempotent: true` call is run again with the same key while it has attempts left; any
 * other call's effect is unknown, so it is `INTERRUPTED`. A tool without `effects: 'external'`
 * records no start, so a call of it that is not idempotent may have run: `INTERRUPTED`, as before.
 */
export function resumeVerdict(tool: AnyToolDefinition | undefined, began: number): ResumeVerdict {
  if (tool === undefined) return { kind: 'interrupted' }
  if (tool.effects === 'external' && began === 0) return { kind: 'run', attempt: 1 }
  if (tool.idempotent === true && began < RESUME_ATTEMPTS) return { kind: 'run', attempt: began + 1 }
  return { kind: 'interrupted' }
}

function interrupted(scheduler: ToolRuntimeScheduler, input: ToolExecutionInput): ToolExecutionResult {
  return scheduler.synthesize(
    input,
    'INTERRUPTED',
    `Tool call "${input.name}" was interrupted: the process stopped before its result was recorded, and the session was resumed.`,
  )
}

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
  readonly modelCallId?: string
  readonly messageSeq?: number
}

/**
 * Resuming a session that stopped mid-step, before `answerInterruptedCalls`: every top-level call
 * without a result, then every call of the last message that was never recorded, in model order,
 * is run (its `resumeVerdict` says so) or answered `INTERRUPTED`. A run goes through the whole
 * pipeline (`tools.execute`: policy, guards, the body) with the call's own idempotency key (T49),
 * records its attempt as `tool/began` before the body (T50; for an idempotent tool without
 * `effects: 'external'` before the call) and its real result as `tool/result`; what it deferred
 * becomes the next step's message. Nested calls left open (a `run_code` program's) are answered
 * `INTERRUPTED` first, before their outer call, as `verifyToolPairs` requires. Returns how many
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

  for (const call of open.filter((entry) => entry.parentCallId !== undefined)) {
    await appendToolResult({
      session,
      turn: call.turn,
      step: call.step,
      callId: call.callId,
      callSeq: call.seq,
      result: interrupted(scheduler, inputOfOpenCall(call)),
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

  let ran = 0
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
    const tool = tools.get(call.name)
    const verdict = resumeVerdict(tool, began.get(call.callId) ?? 0)
    let result: ToolExecutionResult
    if (verdict.kind === 'interrupted') result = interrupted(scheduler, inputOfOpenCall(call))
    else {
      const began = (): Promise<void> =>
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
      if (tool?.effects !== 'external') await began()
      const effects: ToolCallEffects = Object.freeze({ idempotencyScope: scope, onBodyStart: began })
      result = await tools.execute({ ...inputOfOpenCall(call), effects })
      ran += 1
      if (result.additionalContexts !== undefined) inbox.push(...result.additionalContexts)
    }
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
