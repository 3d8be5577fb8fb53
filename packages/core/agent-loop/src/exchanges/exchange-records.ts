import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

/**
 * What a running call's body may ask outside itself, recorded in the session (T66, T67): a person
 * (`elicitation`: an MCP server's `elicitation/create`) or a model (`sampling`: its
 * `sampling/createMessage`). Each question is `<kind>/request`, citing the call's `tool/call`; its
 * answer is `<kind>/answer`, citing the request.
 */
export type ExchangeKind = 'elicitation' | 'sampling'

export const EXCHANGE_KINDS: readonly ExchangeKind[] = ['elicitation', 'sampling']

/** `data` of `<kind>/request`. */
export interface ExchangeRequestEventData {
  readonly turn: number
  readonly step: number
  readonly callId: string
  /** The tool the call runs. */
  readonly name: string
  /** Who asked, e.g. `mcp:<server>`. */
  readonly source: string
  /** The question as the asker sent it (an MCP request's `params`). */
  readonly request: JsonObject
}

/** `data` of `<kind>/answer`. `by`: answered while the call ran (`live`) or given to `resume`. */
export interface ExchangeAnswerEventData {
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly answer: JsonObject
  readonly by: 'live' | 'resume'
}

export const requestType = (kind: ExchangeKind): string => `${kind}/request`
export const answerType = (kind: ExchangeKind): string => `${kind}/answer`

/** One recorded question of a call, with its answer once there is one. */
export interface RecordedExchange {
  readonly seq: number
  readonly data: ExchangeRequestEventData
  readonly answer: JsonObject | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The request's data when the event is a well-formed `<kind>/request`; else undefined. */
export function readExchangeRequest(
  event: SessionEvent,
  kind: ExchangeKind,
): ExchangeRequestEventData | undefined {
  if (event.type !== requestType(kind)) return undefined
  const data = event.data
  if (!isObject(data)) return undefined
  const { turn, step, callId, name, source, request } = data
  if (typeof turn !== 'number' || typeof step !== 'number') return undefined
  if (typeof callId !== 'string' || typeof name !== 'string' || typeof source !== 'string') return undefined
  if (!isObject(request)) return undefined
  return data as unknown as ExchangeRequestEventData
}

/** The request seq an `<kind>/answer` event cites, and its answer. */
function readExchangeAnswer(
  event: SessionEvent,
  kind: ExchangeKind,
): { readonly requestSeq: number; readonly answer: JsonObject } | undefined {
  if (event.type !== answerType(kind)) return undefined
  const requestSeq = event.sourceEventSeqs?.[0]
  const answer = isObject(event.data) ? event.data.answer : undefined
  if (requestSeq === undefined || !isObject(answer)) return undefined
  return { requestSeq, answer: answer as JsonObject }
}

/** Every question of `kind` recorded for `callId` (all of them, if `callId` is undefined), in log order. */
export function recordedExchanges(
  events: readonly SessionEvent[],
  kind: ExchangeKind,
  callId?: string,
): RecordedExchange[] {
  const asked = new Map<number, { data: ExchangeRequestEventData; answer: JsonObject | undefined }>()
  for (const event of events) {
    const request = readExchangeRequest(event, kind)
    if (request !== undefined) {
      if (callId === undefined || request.callId === callId)
        asked.set(event.seq, { data: request, answer: undefined })
      continue
    }
    const answered = readExchangeAnswer(event, kind)
    if (answered === undefined) continue
    const entry = asked.get(answered.requestSeq)
    // the first answer counts: a request is answered once
    if (entry !== undefined && entry.answer === undefined) entry.answer = answered.answer
  }
  return [...asked].map(([seq, entry]) => ({ seq, data: entry.data, answer: entry.answer }))
}

/** JSON text with object keys sorted: two questions are the same when their texts are. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
