import { describeValue } from '@deepseek-ai/dsh-llm'

/** A recorded `tool/call` with what answered it, read defensively from untrusted events. */
export interface CollectedCall {
  readonly seq: number
  readonly time: number
  readonly iso: string
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  /** A recorded `mode` (`parallel` / `exclusive`), when the session has one. */
  readonly mode: 'parallel' | 'exclusive' | undefined
  readonly parentCallId: string | undefined
  parentSeq: number | undefined
  result: CollectedResult | undefined
  late:
    | { readonly seq: number; readonly time: number; readonly iso: string; readonly outcome: unknown }
    | undefined
}

export interface CollectedResult {
  readonly seq: number
  readonly time: number
  readonly iso: string
  readonly isError: boolean
  readonly content: unknown
  readonly error: { readonly code: string; readonly name: string } | undefined
  /** `timings.runMs` when recorded: from the call's start to its result. */
  readonly runMs: number | undefined
  /** `timings.commitMs` when recorded: from its result to this `tool/result` being appended. */
  readonly commitMs: number | undefined
}

export interface CollectedCalls {
  /** In seq order. */
  readonly calls: readonly CollectedCall[]
  /** Time of the last readable event (where a call without result is drawn to). */
  readonly lastTime: number | undefined
  readonly recorded: { mode: boolean; timings: boolean }
  readonly notes: readonly string[]
}

const MAX_NOTES = 50

interface ReadEvent {
  readonly seq: number
  readonly type: string
  readonly iso: string
  readonly time: number
  readonly data: Record<string, unknown>
  readonly sources: readonly unknown[]
}

type Fields = Record<string, unknown>

const record = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined

/**
 * Pairs every `tool/call` with its `tool/result` (the call cited by `sourceEventSeqs[0]`, else the
 * latest unanswered call with the result's callId) and its `tool/late-outcome`, and links nested
 * calls to their parent (`parentCallId`). Session content is untrusted: every field is read once
 * and checked; what cannot be used becomes a note, never an exception.
 */
export function collectToolCalls(events: readonly unknown[]): CollectedCalls {
  const notes: string[] = []
  let dropped = 0
  const note = (text: string): void => {
    if (notes.length < MAX_NOTES) notes.push(text)
    else dropped += 1
  }
  const calls: CollectedCall[] = []
  const bySeq = new Map<number, CollectedCall>()
  const byCallId = new Map<string, CollectedCall[]>()
  const recorded = { mode: false, timings: false }
  let lastTime: number | undefined

  for (const [index, raw] of events.entries()) {
    const event = readEvent(raw, index, note)
    if (event === undefined) continue
    lastTime = lastTime === undefined ? event.time : Math.max(lastTime, event.time)
    switch (event.type) {
      case 'tool/call': {
        const call = readCall(event, note)
        if (call === undefined) break
        if (call.mode !== undefined) recorded.mode = true
        if (call.parentCallId !== undefined) {
          const parent = latest(byCallId.get(call.parentCallId))
          if (parent === undefined)
            note(
              `tool/call seq ${call.seq}: its parentCallId ${quote(call.parentCallId)} names no earlier call; drawn as a call of its step`,
            )
          else call.parentSeq = parent.seq
        }
        calls.push(call)
        bySeq.set(call.seq, call)
        const same = byCallId.get(call.callId)
        if (same === undefined) byCallId.set(call.callId, [call])
        else same.push(call)
        break
      }
      case 'tool/result': {
        const result = readResult(event)
        if (result.runMs !== undefined) recorded.timings = true
        const call =
          answerable(bySeq.get(count(event.sources[0]) ?? -1)) ??
          latestUnanswered(byCallId.get(resultCallId(event.data) ?? ''))
        if (call === undefined) note(`tool/result seq ${event.seq} answers no recorded, unanswered call`)
        else call.result = result
        break
      }
      case 'tool/late-outcome': {
        const callId = typeof event.data.callId === 'string' ? event.data.callId : undefined
        const call = bySeq.get(count(event.sources[0]) ?? -1) ?? latest(byCallId.get(callId ?? ''))
        if (call === undefined || call.late !== undefined)
          note(`tool/late-outcome seq ${event.seq} belongs to no recorded call`)
        else call.late = { seq: event.seq, time: event.time, iso: event.iso, outcome: event.data.outcome }
        break
      }
      default:
        break
    }
  }
  if (dropped > 0) notes.push(`… and ${dropped} more`)
  return { calls, lastTime, recorded, notes }
}

function readEvent(raw: unknown, index: number, note: (text: string) => void): ReadEvent | undefined {
  try {
    const event = record(raw)
    if (event === undefined) {
      note(`event #${index + 1} is not an event object (${describeValue(raw)})`)
      return undefined
    }
    const { seq, type, time, data, sourceEventSeqs } = event
    if (type !== 'tool/call' && type !== 'tool/result' && type !== 'tool/late-outcome') {
      // only its time matters (the end of the session)
      const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN
      return Number.isNaN(ms)
        ? undefined
        : { seq: 0, type: String(type), iso: String(time), time: ms, data: {}, sources: [] }
    }
    const where = `${type} #${index + 1}`
    const at = typeof time === 'string' ? Date.parse(time) : Number.NaN
    if (count(seq) === undefined || Number.isNaN(at) || record(data) === undefined) {
      note(`${where} is malformed (seq, time or data); skipped`)
      return undefined
    }
    return {
      seq: seq as number,
      type,
      iso: time as string,
      time: at,
      data: record(data)!,
      sources: Array.isArray(sourceEventSeqs) ? (sourceEventSeqs as unknown[]) : [],
    }
  } catch {
    // a hostile value (a getter that throws, a revoked proxy): leave it out
    note(`event #${index + 1} could not be read; skipped`)
    return undefined
  }
}

function readCall(event: ReadEvent, note: (text: string) => void): CollectedCall | undefined {
  const { data } = event
  const turn = count(data.turn)
  const step = count(data.step)
  const { callId, name, mode, parentCallId } = data
  if (turn === undefined || step === undefined || typeof callId !== 'string' || typeof name !== 'string') {
    note(`tool/call seq ${event.seq} lacks turn, step, callId or name; skipped`)
    return undefined
  }
  return {
    seq: event.seq,
    time: event.time,
    iso: event.iso,
    turn,
    step,
    callId,
    name,
    arguments: data.arguments,
    mode: mode === 'parallel' || mode === 'exclusive' ? mode : undefined,
    parentCallId: typeof parentCallId === 'string' ? parentCallId : undefined,
    parentSeq: undefined,
    result: undefined,
    late: undefined,
  }
}

function resultBlock(data: Fields): Fields | undefined {
  const content = record(data.message)?.content
  return Array.isArray(content) ? record(content[0]) : undefined
}

function resultCallId(data: Fields): string | undefined {
  const callId = resultBlock(data)?.callId
  return typeof callId === 'string' ? callId : undefined
}

function readResult(event: ReadEvent): CollectedResult {
  const block = resultBlock(event.data)
  const error = record(event.data.error)
  const timings = record(event.data.timings)
  const ms = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
  return {
    seq: event.seq,
    time: event.time,
    iso: event.iso,
    isError: block?.isError === true || error !== undefined,
    content: block?.content,
    error:
      error === undefined
        ? undefined
        : { code: String(error.code ?? 'ERROR'), name: typeof error.name === 'string' ? error.name : '' },
    runMs: ms(timings?.runMs),
    commitMs: ms(timings?.commitMs),
  }
}

const answerable = (call: CollectedCall | undefined): CollectedCall | undefined =>
  call !== undefined && call.result === undefined ? call : undefined

function latest(calls: readonly CollectedCall[] | undefined): CollectedCall | undefined {
  return calls?.[calls.length - 1]
}

function latestUnanswered(calls: readonly CollectedCall[] | undefined): CollectedCall | undefined {
  if (calls === undefined) return undefined
  for (let i = calls.length - 1; i >= 0; i -= 1) if (calls[i]!.result === undefined) return calls[i]
  return undefined
}

/** A value from the log, quoted and clipped for a note (notes are shown as text, never as markup). */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
