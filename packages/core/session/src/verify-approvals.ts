import { describeValue } from '@deepseek-ai/dsh-llm'
import { resultCallIdOf } from './pending-approvals.ts'
import { asItem, count, record } from './verify-items.ts'
import type { ToolPairProblem } from './verify-tool-pairs.ts'

/** What the approval part of the replay check found, and what a paused step excuses. */
export interface ApprovalReport {
  readonly problems: ToolPairProblem[]
  /** Calls whose approval is pending at the end of the log: not `unanswered-call`. */
  readonly pausedCalls: ReadonlySet<string>
  /** Seqs of the assistant messages of paused steps: their later calls are not `unrecorded-call`. */
  readonly pausedMessages: ReadonlySet<number>
}

interface CallRecord {
  readonly seq: number
  readonly index: number
  readonly turn: unknown
  readonly step: unknown
  readonly name: unknown
  readonly arguments: unknown
  /** Position of the call's first result in the log (Infinity: none). */
  resultAt: number
}

interface RequestRecord {
  readonly seq: number
  readonly index: number
  readonly callId: string
  readonly turn: number
  readonly step: number
  answered: boolean
}

const NONE: ReadonlySet<string> = new Set()
const NONE_SEQS: ReadonlySet<number> = new Set()

function isApprovalEvent(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const type = (value as { type?: unknown }).type
  return type === 'approval/request' || type === 'approval/answer'
}

const ANSWERS: readonly unknown[] = ['once', 'session', 'reject']
const SCOPES: readonly unknown[] = [undefined, 'arguments', 'tool']

const q = (value: string): string => JSON.stringify(value)

/** The problem with an `approval/request`'s data, or its parsed fields. */
function parseRequest(
  data: unknown,
): { turn: number; step: number; callId: string; name: string; arguments: string } | string {
  const d = record(data)
  if (d === undefined) return `data must be an object, got ${describeValue(data)}`
  if (!count(d.turn) || !count(d.step)) return 'data.turn and data.step must be non-negative integers'
  for (const key of ['callId', 'name', 'arguments'] as const)
    if (typeof d[key] !== 'string' || (key !== 'arguments' && d[key] === ''))
      return `data.${key} must be a ${key === 'arguments' ? '' : 'non-empty '}string, got ${describeValue(d[key])}`
  if (d.reason !== undefined && typeof d.reason !== 'string')
    return `data.reason must be a string, got ${describeValue(d.reason)}`
  if (
    d.contexts !== undefined &&
    (!Array.isArray(d.contexts) || !d.contexts.every((c) => typeof c === 'string'))
  )
    return 'data.contexts must be an array of strings'
  if (d.concludesTurn !== undefined && typeof d.concludesTurn !== 'boolean')
    return 'data.concludesTurn must be a boolean'
  return {
    turn: d.turn,
    step: d.step,
    callId: d.callId as string,
    name: d.name as string,
    arguments: d.arguments as string,
  }
}

function parseAnswer(data: unknown): { callId: string } | string {
  const d = record(data)
  if (d === undefined) return `data must be an object, got ${describeValue(data)}`
  if (!count(d.turn) || !count(d.step)) return 'data.turn and data.step must be non-negative integers'
  if (typeof d.callId !== 'string' || d.callId === '')
    return `data.callId must be a non-empty string, got ${describeValue(d.callId)}`
  if (!ANSWERS.includes(d.answer))
    return `data.answer must be 'once', 'session' or 'reject', got ${describeValue(d.answer)}`
  if (!SCOPES.includes(d.scope) || (d.scope !== undefined && d.answer !== 'session'))
    return `data.scope must be 'arguments' or 'tool', and only on a session answer; got ${describeValue(d.scope)}`
  if (d.feedback !== undefined && (typeof d.feedback !== 'string' || d.answer !== 'reject'))
    return 'data.feedback must be a string, and only on a reject answer'
  return { callId: d.callId }
}

const single = (sources: unknown): number | undefined =>
  Array.isArray(sources) && sources.length === 1 && typeof sources[0] === 'number' ? sources[0] : undefined

/**
 * The part of the replay check (T30) for durable approvals. An `approval/request` must follow the
 * `tool/call` it names (same turn, step, name and arguments), cite it (`sourceEventSeqs: [callSeq]`),
 * come before any result of the call, and be the call's only request. An `approval/answer` must cite
 * an earlier request for its callId (`[requestSeq]`), be its only answer, come before the call's
 * result, and have the documented shape. A request that is still pending (no answer, no result) is
 * legal only at the end of the log, as a paused step leaves it: nothing model-facing (a user or
 * assistant message) and no `tool/call` after it. Such a pause excuses its call from
 * `unanswered-call` and its step's later calls from `unrecorded-call`.
 */
export function verifyApprovals(list: readonly unknown[]): ApprovalReport {
  const problems: ToolPairProblem[] = []
  const report = (kind: ToolPairProblem['kind'], seq: number, message: string, callId?: string): void => {
    problems.push(callId === undefined ? { kind, seq, message } : { kind, seq, callId, message })
  }
  // most logs hold no approval events: nothing to check, nothing to allocate
  if (!list.some(isApprovalEvent)) return { problems, pausedCalls: NONE, pausedMessages: NONE_SEQS }
  const items = list.map(asItem)
  const calls = new Map<string, CallRecord>()
  const messages = new Map<string, number>()
  items.forEach((item, index) => {
    if (item === undefined) return
    const data = record(item.data)
    if (item.type === 'tool/call' && typeof data?.callId === 'string' && !calls.has(data.callId)) {
      calls.set(data.callId, {
        seq: item.seq,
        index,
        turn: data.turn,
        step: data.step,
        name: data.name,
        arguments: data.arguments,
        resultAt: Infinity,
      })
    } else if (item.type === 'tool/result' && data !== undefined) {
      const call = calls.get(resultCallIdOf(data) ?? '')
      if (call !== undefined && call.resultAt === Infinity) call.resultAt = index
    } else if (
      item.type === 'assistant/message' &&
      data !== undefined &&
      count(data.turn) &&
      count(data.step)
    ) {
      messages.set(`${data.turn}:${data.step}`, item.seq)
    }
  })

  const requests = new Map<number, RequestRecord>()
  const requested = new Set<string>()
  let lastModelFacing = -1
  let lastCall = -1
  items.forEach((item, index) => {
    if (item === undefined) return
    if (item.type === 'user/message' || item.type === 'assistant/message') lastModelFacing = index
    if (item.type === 'tool/call') lastCall = index
    if (item.type === 'approval/request') {
      const parsed = parseRequest(item.data)
      if (typeof parsed === 'string')
        return report('malformed-event', item.seq, `approval/request seq ${item.seq}: ${parsed}`)
      const { callId } = parsed
      const call = calls.get(callId)
      if (call === undefined || call.index > index) {
        return report(
          'approval-without-call',
          item.seq,
          `approval/request seq ${item.seq} names ${q(callId)}, which has no earlier tool/call`,
          callId,
        )
      }
      if (
        call.turn !== parsed.turn ||
        call.step !== parsed.step ||
        call.name !== parsed.name ||
        call.arguments !== parsed.arguments
      ) {
        report(
          'approval-without-call',
          item.seq,
          `approval/request seq ${item.seq} for ${q(callId)} differs from its tool/call seq ${call.seq} (turn, step, name or arguments)`,
          callId,
        )
      }
      if (single(item.sourceEventSeqs) !== call.seq) {
        report(
          'approval-wrong-source',
          item.seq,
          `approval/request seq ${item.seq} for ${q(callId)} has sourceEventSeqs ${JSON.stringify(item.sourceEventSeqs) ?? 'missing'}; expected [${call.seq}]`,
          callId,
        )
      }
      if (call.resultAt < index) {
        report(
          'approval-after-result',
          item.seq,
          `approval/request seq ${item.seq} asks about ${q(callId)}, which already has its result`,
          callId,
        )
      }
      if (requested.has(callId)) {
        report(
          'duplicate-approval',
          item.seq,
          `approval/request seq ${item.seq} asks about ${q(callId)} a second time`,
          callId,
        )
      }
      requested.add(callId)
      requests.set(item.seq, {
        seq: item.seq,
        index,
        callId,
        turn: parsed.turn,
        step: parsed.step,
        answered: false,
      })
    } else if (item.type === 'approval/answer') {
      const parsed = parseAnswer(item.data)
      if (typeof parsed === 'string')
        return report('malformed-event', item.seq, `approval/answer seq ${item.seq}: ${parsed}`)
      const { callId } = parsed
      const cited = single(item.sourceEventSeqs)
      const request = cited === undefined ? undefined : requests.get(cited)
      if (request === undefined || request.callId !== callId) {
        return report(
          'answer-without-request',
          item.seq,
          `approval/answer seq ${item.seq} for ${q(callId)} does not cite an earlier approval/request of that call (sourceEventSeqs ${JSON.stringify(item.sourceEventSeqs) ?? 'missing'})`,
          callId,
        )
      }
      if (request.answered) {
        return report(
          'duplicate-approval',
          item.seq,
          `approval/answer seq ${item.seq} answers the approval/request seq ${request.seq} a second time`,
          callId,
        )
      }
      request.answered = true
      const call = calls.get(callId)
      if (call !== undefined && call.resultAt < index) {
        report(
          'answer-without-request',
          item.seq,
          `approval/answer seq ${item.seq} comes after ${q(callId)} already has its result`,
          callId,
        )
      }
    }
  })

  const pausedCalls = new Set<string>()
  const pausedMessages = new Set<number>()
  for (const request of requests.values()) {
    const call = calls.get(request.callId)
    if (request.answered || call === undefined || call.resultAt !== Infinity) continue
    if (lastModelFacing > request.index || lastCall > request.index) {
      report(
        'approval-not-last',
        request.seq,
        `approval/request seq ${request.seq} for ${q(request.callId)} is still pending, yet the log goes on after it (a message or a tool/call); a paused step must be answered before anything follows`,
        request.callId,
      )
      continue
    }
    pausedCalls.add(request.callId)
    const message = messages.get(`${request.turn}:${request.step}`)
    if (message !== undefined) pausedMessages.add(message)
  }
  return { problems, pausedCalls, pausedMessages }
}
