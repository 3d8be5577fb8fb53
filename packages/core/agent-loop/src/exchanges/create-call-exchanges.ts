import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import { readToolCall, resultCallId } from '../log/session-records.ts'
import {
  answerType,
  canonicalJson,
  recordedExchanges,
  requestType,
  type ExchangeAnswerEventData,
  type ExchangeKind,
  type ExchangeRequestEventData,
} from './exchange-records.ts'

/** One question a running call's body puts to someone outside it, and how to get the answer live. */
export interface CallQuestion {
  readonly kind: ExchangeKind
  /** Who asks, e.g. `mcp:<server>`. */
  readonly source: string
  /** The question as JSON (an MCP request's `params`): equal questions of a re-run are matched on it. */
  readonly request: JsonObject
  /** Asks the person or the model now; its answer is recorded before it is returned. */
  readonly answer: () => Promise<JsonObject>
}

/** The recorded questions of one run of one call: a re-run is answered from the log where it can be. */
export interface CallExchangeLog {
  /**
   * Answers a question of the call's body (T66, T67): an equal question recorded earlier for this
   * call (a run before a restart) that this run has not used yet gives its recorded answer
   * (`replayed: true`); otherwise the question is recorded as `<kind>/request` (citing the call's
   * `tool/call`), `answer()` is asked, and its answer recorded as `<kind>/answer` before it is
   * returned. A question recorded earlier without an answer (the process stopped while a person
   * had it) is asked again and answered under that request. Rejects when `answer()` does, or the
   * session refuses a record (then nothing is sent to the asker without being in the log).
   */
  ask(question: CallQuestion): Promise<{ readonly answer: JsonObject; readonly replayed: boolean }>
}

/**
 * `ctx.callExchanges`, provided by every agent on its scope: how a tool body (the MCP plugin's)
 * records what it asks a person or a model while it runs, so that a run of the call after a
 * restart gets the same answers (T66).
 */
export interface CallExchanges {
  /**
   * The log of one run of the call `callId`; `undefined` when the agent's session has no open
   * `tool/call` of that id (the call is not the agent's, or already has its result). One log per
   * run: questions are matched to recorded ones in the order that run asks them.
   */
  forCall(callId: string): CallExchangeLog | undefined
}

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    callExchanges?: CallExchanges
  }
}

interface OpenCall {
  readonly seq: number
  readonly turn: number
  readonly step: number
  readonly name: string
}

/** The call's `tool/call` while it has no `tool/result`; the newest first (call ids are unique). */
function openCall(events: readonly SessionEvent[], callId: string): OpenCall | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!
    if (event.type === 'tool/result' && resultCallId(event) === callId) return undefined
    if (event.type !== 'tool/call') continue
    const call = readToolCall(event)
    if (call.callId === callId) return { seq: event.seq, turn: call.turn, step: call.step, name: call.name }
  }
  return undefined
}

export function createCallExchanges(session: AnySession): CallExchanges {
  return Object.freeze({
    forCall(callId: string): CallExchangeLog | undefined {
      if (typeof callId !== 'string' || callId === '') return undefined
      const call = openCall(session.events(), callId)
      if (call === undefined) return undefined
      /** Recorded requests this run has matched or made (each answers one question of the run). */
      const used = new Set<number>()
      const append = async (type: string, data: unknown, source: number): Promise<number> =>
        (await Promise.resolve(session.append(type, data, { sourceEventSeqs: [source] }))).seq
      return Object.freeze({
        async ask(question: CallQuestion) {
          const { kind, source, request } = question
          const text = canonicalJson(request)
          const earlier = recordedExchanges(session.events(), kind, callId).find(
            (entry) => !used.has(entry.seq) && canonicalJson(entry.data.request) === text,
          )
          let requestSeq: number
          if (earlier !== undefined) {
            used.add(earlier.seq)
            if (earlier.answer !== undefined) return { answer: earlier.answer, replayed: true }
            requestSeq = earlier.seq
          } else {
            const data: ExchangeRequestEventData = {
              turn: call.turn,
              step: call.step,
              callId,
              name: call.name,
              source,
              request,
            }
            requestSeq = await append(requestType(kind), data, call.seq)
            used.add(requestSeq)
          }
          const answer = await question.answer()
          const data: ExchangeAnswerEventData = {
            turn: call.turn,
            step: call.step,
            callId,
            answer,
            by: 'live',
          }
          await append(answerType(kind), data, requestSeq)
          return { answer, replayed: false }
        },
      })
    },
  })
}
