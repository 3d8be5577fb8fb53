import { describeValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
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
  const calls = new Map<string, number>()
  const open = new Map<number, PendingApproval>()
  for (const raw of events as readonly unknown[]) {
    const event = item(raw)
    if (event === undefined) continue
    const { data } = event
    switch (event.type) {
      case 'tool/call':
        if (typeof data.callId === 'string' && !calls.has(data.callId)) calls.set(data.callId, event.seq)
        break
      case 'tool/result': {
        const callId = resultCallIdOf(data)
        for (const [seq, approval] of open) if (approval.callId === callId) open.delete(seq)
        break
      }
      case 'approval/request': {
        const { turn, step, callId, name, arguments: args, reason } = data
        if (typeof callId !== 'string' || typeof name !== 'string' || typeof args !== 'string') break
        if (typeof turn !== 'number' || typeof step !== 'number') break
        const callSeq = calls.get(callId)
        if (callSeq === undefined) break
        open.set(event.seq, {
          turn,
          step,
          callId,
          name,
          arguments: args,
          reason: typeof reason === 'string' ? reason : undefined,
          requestSeq: event.seq,
          callSeq,
        })
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
  return [...open.values()]
}
