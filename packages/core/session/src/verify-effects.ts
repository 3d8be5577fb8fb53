import type { SessionEvent } from './types.ts'

/** A call whose effect nobody can vouch for: its body began (`tool/began`) and it was never answered. */
export interface UnknownEffect {
  /** Seq of the call's `tool/call`. */
  readonly callSeq: number
  /** Seq of its last `tool/began`. */
  readonly beganSeq: number
  readonly callId: string
  readonly name: string
  readonly turn: number | undefined
  readonly step: number | undefined
  /** How many times its body began. */
  readonly attempts: number
  readonly idempotencyKey: string | undefined
  /**
   * `interrupted`: answered with the loop's `INTERRUPTED` after its body began; `unanswered`: no
   * `tool/result` at all (the process stopped, nothing resumed the session yet).
   */
  readonly state: 'interrupted' | 'unanswered'
}

export interface EffectReport {
  /** True when `unknown` is empty: every call whose body began either answered or may safely run again. */
  readonly ok: boolean
  /** In `tool/call` order. */
  readonly unknown: readonly UnknownEffect[]
}

interface Began {
  readonly call: SessionEvent
  beganSeq: number
  attempts: number
  idempotent: boolean
  key: string | undefined
  answer: 'none' | 'interrupted' | 'real'
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The `callId` a `tool/result` answers (its message's first content block), or undefined. */
function answeredId(data: unknown): string | undefined {
  if (!isRecord(data) || !isRecord(data.message)) return undefined
  const content = data.message.content
  if (!Array.isArray(content)) return undefined
  const first: unknown = content[0]
  return isRecord(first) && typeof first.callId === 'string' ? first.callId : undefined
}

/**
 * T53: from a log alone, every call whose effect is unknown: its body began (`tool/began`, recorded
 * for tools with `effects: 'external'`) and it was answered `INTERRUPTED` (the resume could not run
 * it again), or it has no `tool/result` and its tool did not declare `idempotent: true` when it began
 * (an unanswered idempotent call is run again on resume with the same key). These are the calls an operator checks by
 * hand: did the deploy, the payment, the email happen? A call that never began is not listed (its
 * body did not run), nor is one answered with a real result. Never throws; malformed events are
 * `verifyToolPairs`'s concern and are skipped here.
 */
export function verifyEffects(events: readonly SessionEvent[]): EffectReport {
  const calls = new Map<string, SessionEvent>()
  const began = new Map<string, Began>()
  for (const event of events) {
    const data: unknown = event.data
    if (!isRecord(data)) continue
    if (event.type === 'tool/call') {
      if (typeof data.callId === 'string' && !calls.has(data.callId)) calls.set(data.callId, event)
    } else if (event.type === 'tool/began') {
      if (typeof data.callId !== 'string') continue
      const call = calls.get(data.callId)
      if (call === undefined) continue
      const entry = began.get(data.callId)
      const key = typeof data.idempotencyKey === 'string' ? data.idempotencyKey : undefined
      if (entry === undefined)
        began.set(data.callId, {
          call,
          beganSeq: event.seq,
          attempts: 1,
          idempotent: data.idempotent === true,
          key,
          answer: 'none',
        })
      else {
        entry.beganSeq = event.seq
        entry.attempts += 1
        entry.idempotent = data.idempotent === true
      }
    } else if (event.type === 'tool/result') {
      const callId = answeredId(data)
      const entry = callId === undefined ? undefined : began.get(callId)
      if (entry === undefined || entry.answer !== 'none') continue
      const error = data.error
      entry.answer = isRecord(error) && error.code === 'INTERRUPTED' ? 'interrupted' : 'real'
    }
  }
  const unknown: UnknownEffect[] = []
  for (const [callId, entry] of began) {
    // an unanswered idempotent call is run again on resume; one answered INTERRUPTED no longer is
    if (entry.answer === 'real' || (entry.answer === 'none' && entry.idempotent)) continue
    const data = entry.call.data as Record<string, unknown>
    unknown.push(
      Object.freeze({
        callSeq: entry.call.seq,
        beganSeq: entry.beganSeq,
        callId,
        name: typeof data.name === 'string' ? data.name : '',
        turn: typeof data.turn === 'number' ? data.turn : undefined,
        step: typeof data.step === 'number' ? data.step : undefined,
        attempts: entry.attempts,
        idempotencyKey: entry.key,
        state: entry.answer === 'interrupted' ? 'interrupted' : 'unanswered',
      }),
    )
  }
  unknown.sort((a, b) => a.callSeq - b.callSeq)
  return Object.freeze({ ok: unknown.length === 0, unknown: Object.freeze(unknown) })
}
