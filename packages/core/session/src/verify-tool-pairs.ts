import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import type { SessionEvent } from './types.ts'
import { verifyApprovals } from './verify-approvals.ts'
import { verifyMessageCalls } from './verify-message-calls.ts'

export type ToolPairProblemKind =
  | 'duplicate-call'
  | 'duplicate-result'
  | 'orphan-result'
  | 'result-before-call'
  | 'unanswered-call'
  | 'wrong-source'
  | 'step-mismatch'
  | 'out-of-order-result'
  | 'step-overlap'
  | 'malformed-event'
  /** A nested call (`data.parentCallId`) whose parent was not called before it. */
  | 'unknown-parent'
  /** A nested call recorded after its parent call was answered. */
  | 'nested-after-parent'
  /** A call answered while nested calls it made still wait for their results. */
  | 'parent-answered-early'
  /** A `tool/call` recorded before the `assistant/message` of its turn and step (T40). */
  | 'call-before-message'
  /** A `tool/call` whose id, name or arguments are not a tool-call block of its step's assistant message. */
  | 'call-not-in-message'
  /** A `tool/call` whose `sourceEventSeqs` is not `[seq]` of its step's earlier assistant message. */
  | 'wrong-message-source'
  /** A tool-call block of an assistant message that was never recorded as `tool/call`. */
  | 'unrecorded-call'
  /** A `tool/result` recorded after the next user or assistant message: the history would be invalid. */
  | 'answer-after-next-message'
  /** An `approval/request` with no earlier `tool/call` of its callId, or one that differs from it. */
  | 'approval-without-call'
  /** An `approval/request` whose `sourceEventSeqs` is not `[callSeq]`. */
  | 'approval-wrong-source'
  /** An `approval/request` for a call that already has its result. */
  | 'approval-after-result'
  /** A second `approval/request` for one call, or a second `approval/answer` for one request. */
  | 'duplicate-approval'
  /** An `approval/answer` that cites no earlier request of its call, or comes after the call's result. */
  | 'answer-without-request'
  /** A pending `approval/request` (no answer, no result) followed by a message or a `tool/call`. */
  | 'approval-not-last'

export interface ToolPairProblem {
  readonly kind: ToolPairProblemKind
  /** The event the problem is reported on (0 when the event has no numeric seq). */
  readonly seq: number
  readonly callId?: string
  readonly message: string
}

export interface ToolPairReport {
  /** True when `problems` is empty: every call has exactly one result, in order, citing it. */
  readonly ok: boolean
  /** Every problem found, ordered by seq. */
  readonly problems: readonly ToolPairProblem[]
}

interface CallRecord {
  readonly seq: number
  readonly callId: string
  readonly turn: number
  readonly step: number
  /** The outer call of a nested call (Code Mode), when it was recorded before it. */
  readonly parent: CallRecord | undefined
  /** The key of the group its position counts in (see `stepKey`). */
  readonly group: string
  /** Index among the calls of its (turn, step) — or, for a nested call, of its parent — in log order. */
  readonly position: number
  answered: boolean
  /** Nested calls of this call still waiting for their results. */
  openNested: number
}

interface StepRecord {
  calls: number
  /** Position of the latest-positioned call answered so far; -1 before any. */
  highestAnswered: number
}

/**
 * The replay check (T30): pairs every `tool/call` (`data.callId`) with its `tool/result`
 * (`data.message.content[0].callId`) and reports every problem, not just the first (call ids are
 * unique in a session: a model's id the loop found taken is kept as `data.modelCallId`, and that is
 * what the call is matched with in its assistant message): duplicate calls or
 * results, results without a call or before it, unanswered calls, a result whose `sourceEventSeqs` is
 * not exactly `[callSeq]`, a result whose turn/step differs from its call's, results of one step out
 * of call order, a later step's call while an earlier step still waits for results, and tool events
 * whose data is malformed. Where the log holds the assistant messages (as the loop writes them), each
 * call is also checked against its message (T40): recorded after it, one of its tool-call blocks,
 * citing it when it cites a source; and each tool-call block of a message is recorded and answered
 * before the next user or assistant message, so the rebuilt history is valid for a provider. Other
 * event types are ignored. Throws `INVALID_ARGUMENT` only when `events` is not an array; its entries
 * are read as plain data.
 *
 * Nested calls (made by a `run_code` program: `data.parentCallId` names the outer call) are checked
 * as pairs like any call, ordered among the nested calls of the same parent, and must also cite a
 * parent recorded before them (`sourceEventSeqs: [parentCallSeq]`, same turn and step) that is still
 * unanswered, and be answered before it.
 *
 * @example
 * const report = verifyToolPairs(session.events())
 * if (!report.ok) for (const p of report.problems) console.warn(p.kind, p.message)
 */
export function verifyToolPairs(events: readonly SessionEvent[]): ToolPairReport {
  if (!Array.isArray(events)) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `verifyToolPairs(events): events must be an array of session events, got ${describeValue(events)}`,
    })
  }
  const list = events as readonly unknown[]
  const problems: ToolPairProblem[] = []
  const report = (kind: ToolPairProblemKind, seq: number, message: string, callId?: string): void => {
    problems.push(callId === undefined ? { kind, seq, message } : { kind, seq, callId, message })
  }
  const firstCallAt = indexFirstCalls(list)
  const calls = new Map<string, CallRecord>()
  const steps = new Map<string, StepRecord>()
  const unanswered = new Set<CallRecord>()
  let latest: { turn: number; step: number } | undefined

  /** The parent of a nested call, if it may have one now; reports why not otherwise. */
  const checkParent = (
    event: { seq: number; sourceEventSeqs: unknown },
    call: ParsedCall,
  ): CallRecord | undefined => {
    const { seq } = event
    const parent = calls.get(call.parentCallId!)
    const where = `nested tool/call seq ${seq} (${q(call.callId)})`
    if (parent === undefined) {
      report(
        'unknown-parent',
        seq,
        `${where} names parent ${q(call.parentCallId!)}, which was not called before it`,
        call.callId,
      )
      return undefined
    }
    if (parent.answered) {
      report(
        'nested-after-parent',
        seq,
        `${where} comes after its parent ${q(parent.callId)} (seq ${parent.seq}) was answered`,
        call.callId,
      )
      return undefined
    }
    const sources = event.sourceEventSeqs
    if (!Array.isArray(sources) || sources.length !== 1 || sources[0] !== parent.seq) {
      report(
        'wrong-source',
        seq,
        `${where} has sourceEventSeqs ${sources === undefined ? 'missing' : JSON.stringify(sources)}; expected [${parent.seq}], its parent's tool/call`,
        call.callId,
      )
    }
    if (parent.turn !== call.turn || parent.step !== call.step) {
      report(
        'step-mismatch',
        seq,
        `${where} is in ${stepName(call)} but its parent (seq ${parent.seq}) is in ${stepName(parent)}`,
        call.callId,
      )
    }
    return parent
  }

  for (const [index, item] of list.entries()) {
    const event = asEvent(item)
    if (event === undefined) {
      report(
        'malformed-event',
        seqOf(item),
        `events[${index}] is not a session event (${describeValue(item)})`,
      )
      continue
    }
    const { seq } = event
    if (event.type === 'tool/call') {
      const call = parseCall(event.data)
      if (typeof call === 'string') {
        report('malformed-event', seq, `tool/call seq ${seq}: ${call}`)
        continue
      }
      const earlier = calls.get(call.callId)
      if (earlier !== undefined) {
        report(
          'duplicate-call',
          seq,
          `tool/call seq ${seq} reuses callId ${q(call.callId)} of seq ${earlier.seq}`,
          call.callId,
        )
        continue
      }
      const waiting = firstWaitingBefore(unanswered, call)
      if (waiting !== undefined) {
        report(
          'step-overlap',
          seq,
          `tool/call seq ${seq} (${q(call.callId)}, ${stepName(call)}) starts while ${stepName(waiting)} still waits for the result of ${q(waiting.callId)} (seq ${waiting.seq})`,
          call.callId,
        )
      } else if (latest !== undefined && compareSteps(call, latest) < 0) {
        report(
          'step-overlap',
          seq,
          `tool/call seq ${seq} (${q(call.callId)}, ${stepName(call)}) comes after ${stepName(latest)} began`,
          call.callId,
        )
      }
      const parent = call.parentCallId === undefined ? undefined : checkParent(event, call)
      const key = stepKey(call)
      const stepRecord = steps.get(key) ?? { calls: 0, highestAnswered: -1 }
      steps.set(key, stepRecord)
      const record: CallRecord = {
        seq,
        callId: call.callId,
        turn: call.turn,
        step: call.step,
        parent,
        group: key,
        position: stepRecord.calls,
        answered: false,
        openNested: 0,
      }
      if (parent !== undefined) parent.openNested += 1
      stepRecord.calls += 1
      calls.set(call.callId, record)
      unanswered.add(record)
      if (latest === undefined || compareSteps(call, latest) > 0)
        latest = { turn: call.turn, step: call.step }
    } else if (event.type === 'tool/result') {
      const result = parseResult(event.data)
      if (typeof result === 'string') {
        report('malformed-event', seq, `tool/result seq ${seq}: ${result}`)
        continue
      }
      const { callId } = result
      const call = calls.get(callId)
      if (call === undefined) {
        const callAt = firstCallAt.get(callId)
        if (callAt !== undefined && callAt > index) {
          report(
            'result-before-call',
            seq,
            `tool/result seq ${seq} answers ${q(callId)} before its tool/call`,
            callId,
          )
        } else
          report(
            'orphan-result',
            seq,
            `tool/result seq ${seq} answers ${q(callId)}, which was never called`,
            callId,
          )
        continue
      }
      if (call.answered) {
        report(
          'duplicate-result',
          seq,
          `tool/result seq ${seq} answers ${q(callId)} (seq ${call.seq}) a second time`,
          callId,
        )
        continue
      }
      call.answered = true
      unanswered.delete(call)
      if (call.parent !== undefined) call.parent.openNested -= 1
      if (call.openNested > 0) {
        const waiting = [...unanswered]
          .filter((other) => other.parent === call)
          .map((other) => q(other.callId))
        report(
          'parent-answered-early',
          seq,
          `tool/result seq ${seq} answers ${q(callId)} while its nested call(s) ${waiting.join(', ')} still wait for results`,
          callId,
        )
      }
      const sources = event.sourceEventSeqs
      if (!Array.isArray(sources) || sources.length !== 1 || sources[0] !== call.seq) {
        report(
          'wrong-source',
          seq,
          `tool/result seq ${seq} for ${q(callId)} has sourceEventSeqs ${sources === undefined ? 'missing' : JSON.stringify(sources)}; expected [${call.seq}]`,
          callId,
        )
      }
      if (result.turn !== call.turn || result.step !== call.step) {
        report(
          'step-mismatch',
          seq,
          `tool/result seq ${seq} for ${q(callId)} is in ${stepName(result)} but its call (seq ${call.seq}) is in ${stepName(call)}`,
          callId,
        )
      }
      const stepRecord = steps.get(call.group) as StepRecord
      if (call.position < stepRecord.highestAnswered) {
        report(
          'out-of-order-result',
          seq,
          `tool/result seq ${seq} for ${q(callId)} comes after the result of a call made later in ${stepName(call)}`,
          callId,
        )
      }
      stepRecord.highestAnswered = Math.max(stepRecord.highestAnswered, call.position)
    }
  }
  const approvals = verifyApprovals(list)
  for (const call of unanswered) {
    // a paused step (its approval pending at the end of the log) is not a broken one
    if (approvals.pausedCalls.has(call.callId)) continue
    report(
      'unanswered-call',
      call.seq,
      `tool/call seq ${call.seq} (${q(call.callId)}) never got a tool/result`,
      call.callId,
    )
  }
  for (const problem of verifyMessageCalls(list))
    if (problem.kind !== 'unrecorded-call' || !approvals.pausedMessages.has(problem.seq))
      problems.push(problem)
  problems.push(...approvals.problems)
  // Array.prototype.sort is stable: problems on one event keep the order they were found in.
  problems.sort((a, b) => a.seq - b.seq)
  return Object.freeze({ ok: problems.length === 0, problems: Object.freeze(problems) })
}

interface StepRef {
  readonly turn: number
  readonly step: number
}

interface ParsedCall extends StepRef {
  readonly callId: string
  /** Set on a nested call. */
  readonly parentCallId?: string | undefined
}

function indexFirstCalls(list: readonly unknown[]): Map<string, number> {
  const first = new Map<string, number>()
  for (const [index, item] of list.entries()) {
    const event = asEvent(item)
    if (event?.type !== 'tool/call') continue
    const call = parseCall(event.data)
    if (typeof call !== 'string' && !first.has(call.callId)) first.set(call.callId, index)
  }
  return first
}

function firstWaitingBefore(unanswered: ReadonlySet<CallRecord>, call: StepRef): CallRecord | undefined {
  for (const waiting of unanswered) if (compareSteps(waiting, call) < 0) return waiting
  return undefined
}

function asEvent(
  item: unknown,
): { seq: number; type: string; data: unknown; sourceEventSeqs: unknown } | undefined {
  if (typeof item !== 'object' || item === null) return undefined
  const { seq, type, data, sourceEventSeqs } = item as Record<string, unknown>
  if (typeof seq !== 'number' || typeof type !== 'string') return undefined
  return { seq, type, data, sourceEventSeqs }
}

function seqOf(item: unknown): number {
  if (typeof item !== 'object' || item === null) return 0
  const seq = (item as { seq?: unknown }).seq
  return typeof seq === 'number' ? seq : 0
}

function parseCall(data: unknown): ParsedCall | string {
  if (!isRecord(data)) return `data must be an object, got ${describeValue(data)}`
  const where = stepProblem(data)
  if (where !== undefined) return where
  if (typeof data.callId !== 'string' || data.callId === '')
    return `data.callId must be a non-empty string, got ${describeValue(data.callId)}`
  if (typeof data.name !== 'string' || data.name === '')
    return `data.name must be a non-empty string, got ${describeValue(data.name)}`
  if (typeof data.arguments !== 'string')
    return `data.arguments must be the raw JSON string, got ${describeValue(data.arguments)}`
  const parentCallId = data.parentCallId
  if (parentCallId !== undefined && (typeof parentCallId !== 'string' || parentCallId === ''))
    return `data.parentCallId must be a non-empty string when present, got ${describeValue(parentCallId)}`
  const modelCallId = data.modelCallId
  if (modelCallId !== undefined) {
    if (typeof modelCallId !== 'string' || modelCallId === '')
      return `data.modelCallId must be a non-empty string when present, got ${describeValue(modelCallId)}`
    if (parentCallId !== undefined)
      return 'data.modelCallId is set on a nested call, which no model wrote (it has a parentCallId)'
  }
  return { turn: data.turn as number, step: data.step as number, callId: data.callId, parentCallId }
}

function parseResult(data: unknown): ParsedCall | string {
  if (!isRecord(data)) return `data must be an object, got ${describeValue(data)}`
  const where = stepProblem(data)
  if (where !== undefined) return where
  const message = data.message
  if (!isRecord(message) || message.role !== 'tool')
    return `data.message must be a tool message, got ${describeValue(message)}`
  const content = message.content
  if (!Array.isArray(content) || content.length !== 1) {
    return `data.message.content must hold exactly one tool-result block, got ${describeValue(content)}`
  }
  const block: unknown = content[0]
  if (!isRecord(block) || block.type !== 'tool-result')
    return `data.message.content[0] must be a tool-result block`
  if (typeof block.callId !== 'string' || block.callId === '') {
    return `data.message.content[0].callId must be a non-empty string, got ${describeValue(block.callId)}`
  }
  if (!Array.isArray(block.content)) return `data.message.content[0].content must be an array`
  if (typeof block.isError !== 'boolean') return `data.message.content[0].isError must be a boolean`
  if (data.error !== undefined) {
    const error = data.error
    if (!isRecord(error) || typeof error.name !== 'string' || typeof error.code !== 'string') {
      return `data.error must be { name, code } strings, got ${describeValue(error)}`
    }
  }
  return { turn: data.turn as number, step: data.step as number, callId: block.callId }
}

function stepProblem(data: Record<string, unknown>): string | undefined {
  for (const key of ['turn', 'step'] as const) {
    const value = data[key]
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return `data.${key} must be a non-negative integer, got ${describeValue(value)}`
    }
  }
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function compareSteps(a: StepRef, b: StepRef): number {
  return a.turn !== b.turn ? a.turn - b.turn : a.step - b.step
}

/** The group a call is ordered in: its step, or for a nested call its parent within the step. */
function stepKey(ref: StepRef & { readonly parentCallId?: string | undefined }): string {
  return ref.parentCallId === undefined
    ? `${ref.turn}:${ref.step}`
    : `${ref.turn}:${ref.step}:${JSON.stringify(ref.parentCallId)}`
}

function stepName(ref: StepRef): string {
  return `turn ${ref.turn} step ${ref.step}`
}

function q(callId: string): string {
  return JSON.stringify(callId)
}
