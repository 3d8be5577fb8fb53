import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import { readingsOf } from './log-views.ts'
import type { SessionEvent } from './types.ts'

/** One approval a session waits for: what a UI shows and what the answer must name (`callId`). */
export interface PendingApproval {
  readonly turn: number
  readonly step: number
  readonly callId: string
  /** The tool the call names. */
  readonly name: string
  /** The raw JSON arguments the model wrote. */
  readonly arguments: string
  /** The policy's `ask` reason, if it gave one. */
  readonly reason: string | undefined
  /** Seq of the `approval/request` event. */
  readonly requestSeq: number
  /** Seq of the call's `tool/call` event. */
  readonly callSeq: number
}

type Item = {
  readonly seq: number
  readonly type: string
  readonly data: Record<string, unknown>
  readonly sources: unknown
}

function item(value: unknown): Item | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { seq, type, data, sourceEventSeqs } = value as Record<string, unknown>
  if (typeof seq !== 'number' || typeof type !== 'string') return undefined
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  return { seq, type, data: data as Record<string, unknown>, sources: sourceEventSeqs }
}

/** The callId a `tool/result` answers, if its data has the documented shape. */
export function resultCallIdOf(data: Record<string, unknown>): string | undefined {
  const message = data.message as { content?: unknown } | undefined
  const content = typeof message === 'object' && message !== null ? message.content : undefined
  const block = Array.isArray(content) ? (content[0] as { callId?: unknown } | undefined) : undefined
  const callId = typeof block === 'object' && block !== null ? block.callId : undefined
  return typeof callId === 'string' && callId !== '' ? callId : undefined
}

/**
 * The approvals a session waits for, in log order: every `approval/request` that no
 * `approval/answer` cites and whose call has no `tool/result` (a result answers the call, and with
 * it the request). The agent loop leaves at most one: a step pauses at its first pending approval.
 * Events are read as plain data; malformed ones are skipped (`verifyToolPairs` reports them).
 * Throws `INVALID_ARGUMENT` only when `events` is not an array.
 *
 * A view a session's `events()` returned is read on from where the reading of an earlier view of
 * the same log stopped, so a turn costs what was appended since (its log only grows, and its events
 * never change, T58); any other array, a view older than the last one read, and every view after a
 * reading that threw are read from their start. Both give the same approvals
 * (test/pending-approvals.property.test.ts).
 * @example
 * for (const approval of pendingApprovals(session.events())) ui.ask(approval.callId, approval.name, approval.reason)
 */
export function pendingApprovals(events: readonly SessionEvent[]): PendingApproval[] {
  if (!Array.isArray(events)) {
    throw new SessionError({
      code: 'INVALID_ARGUMENT',
      message: `pendingApprovals(events): events must be an array of session events, got ${describeValue(events)}`,
    })
  }
  const readings = readingsOf(events)
  if (readings === undefined) return readApprovals(newApprovalReading(), events)
  let reading = readings.approvals as ApprovalReading | undefined
  // An older view than the one read last, or a call from inside a reading (a getter of an event):
  // read in full, and keep the reading as it is.
  if (reading !== undefined && (reading.busy || reading.count > events.length)) {
    return readApprovals(newApprovalReading(), events)
  }
  reading ??= readings.approvals = newApprovalReading()
  reading.busy = true
  try {
    return readApprovals(reading, events)
  } catch (error) {
    // Part of the events may be in the reading: the next view is read from its start.
    readings.approvals = undefined
    throw error
  } finally {
    reading.busy = false
  }
}

/** What was read of a log: how many events, and the requests still open after them. */
interface ApprovalReading {
  count: number
  readonly open: Map<number, PendingApproval>
  /**
   * The seq of each callId's first `tool/call`, made when the first `approval/request` is read (most
   * logs have none, and need no index of every call) and kept up to date from then on.
   */
  calls: Map<string, number> | undefined
  /** True while a call reads into it. */
  busy: boolean
}

function newApprovalReading(): ApprovalReading {
  return { count: 0, open: new Map(), calls: undefined, busy: false }
}

/** Reads `events[reading.count…]` into `reading`; its open requests, in log order. */
function readApprovals(reading: ApprovalReading, events: readonly SessionEvent[]): PendingApproval[] {
  const { open } = reading
  const length = events.length
  for (let index = reading.count; index < length; index++) {
    const event = item(events[index] as unknown)
    if (event === undefined) continue
    const { data } = event
    switch (event.type) {
      case 'tool/call': {
        const calls = reading.calls
        if (calls !== undefined && typeof data.callId === 'string' && !calls.has(data.callId)) {
          calls.set(data.callId, event.seq)
        }
        break
      }
      case 'tool/result': {
        if (open.size === 0) break
        const callId = resultCallIdOf(data)
        for (const [seq, approval] of open) if (approval.callId === callId) open.delete(seq)
        break
      }
      case 'approval/request': {
        const { turn, step, callId, name, arguments: args, reason } = data
        if (typeof callId !== 'string' || typeof name !== 'string' || typeof args !== 'string') break
        if (typeof turn !== 'number' || typeof step !== 'number') break
        reading.calls ??= callIndex(events, index)
        const callSeq = reading.calls.get(callId)
        if (callSeq === undefined) break
        // Frozen: a later call may hand out the same object again.
        const approval: PendingApproval = Object.freeze({
          turn,
          step,
          callId,
          name,
          arguments: args,
          reason: typeof reason === 'string' ? reason : undefined,
          requestSeq: event.seq,
          callSeq,
        })
        open.set(event.seq, approval)
        break
      }
      case 'approval/answer': {
        const cited = Array.isArray(event.sources) ? (event.sources[0] as unknown) : undefined
        if (typeof cited === 'number' && open.get(cited)?.callId === data.callId) open.delete(cited)
        break
      }
      default:
        break
    }
  }
  reading.count = length
  return [...open.values()]
}

/** The seq of each callId's first `tool/call` among `events[0…end)`. */
function callIndex(events: readonly SessionEvent[], end: number): Map<string, number> {
  const calls = new Map<string, number>()
  for (let index = 0; index < end; index++) {
    const event = item(events[index] as unknown)
    if (event === undefined || event.type !== 'tool/call') continue
    const { callId } = event.data
    if (typeof callId === 'string' && !calls.has(callId)) calls.set(callId, event.seq)
  }
  return calls
}
