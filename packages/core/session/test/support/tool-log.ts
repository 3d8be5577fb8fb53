import fc from 'fast-check'
import { createToolResultMessage, type JsonValue } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

/** An abstract log entry; seqs are assigned only when the log is materialized. */
export type Entry =
  | { readonly kind: 'call'; readonly turn: number; readonly step: number; readonly callId: string }
  | {
      readonly kind: 'result'
      readonly turn: number
      readonly step: number
      readonly callId: string
      /** The call entry to cite; `undefined` means "cite your own call"; an array is used verbatim. */
      readonly cite?: Entry | readonly number[] | 'omit'
      readonly malformed?: boolean
    }
  | { readonly kind: 'other'; readonly type: string }

/** Turns entries into events: seq = position + 1, results cite their call's seq. */
export function materialize(entries: readonly Entry[]): SessionEvent[] {
  const seqOf = new Map<Entry, number>(entries.map((entry, i) => [entry, i + 1]))
  const firstCall = new Map<string, Entry>()
  for (const entry of entries)
    if (entry.kind === 'call' && !firstCall.has(entry.callId)) firstCall.set(entry.callId, entry)
  return entries.map((entry, i): SessionEvent => {
    const seq = i + 1
    const time = new Date(Date.UTC(2024, 0, 1, 0, 0, seq)).toISOString()
    switch (entry.kind) {
      case 'call':
        return {
          seq,
          type: 'tool/call',
          time,
          data: { turn: entry.turn, step: entry.step, callId: entry.callId, name: 'tool', arguments: '{}' },
        }
      case 'result': {
        const message = createToolResultMessage({ callId: entry.callId, content: 'ok', isError: false })
        const data = { turn: entry.turn, step: entry.step, message } as unknown as JsonValue
        const cite = entry.cite ?? firstCall.get(entry.callId)
        if (cite === 'omit') return { seq, type: 'tool/result', time, data }
        const sources = Array.isArray(cite) ? cite : cite === undefined ? [] : [seqOf.get(cite as Entry) ?? 0]
        return {
          seq,
          type: 'tool/result',
          time,
          data: entry.malformed === true ? { turn: entry.turn, step: entry.step } : data,
          surfaceOp: 'append',
          sourceEventSeqs: sources,
        }
      }
      case 'other':
        return { seq, type: entry.type, time, data: null }
      default:
        return entry satisfies never
    }
  })
}

/**
 * Well-formed logs: turns of steps of calls; within a step, calls and results interleave in any way
 * that keeps each result after its call and results in call order; unrelated events sprinkled in.
 */
export const wellFormedLog: fc.Arbitrary<Entry[]> = fc
  .array(
    fc.array(fc.tuple(fc.nat(4), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })), {
      minLength: 1,
      maxLength: 3,
    }),
    {
      minLength: 1,
      maxLength: 3,
    },
  )
  .chain((turns) => {
    const entries: Entry[] = []
    turns.forEach((steps, t) =>
      steps.forEach(([count, choices], s) => {
        const turn = t + 1
        const step = s + 1
        let called = 0
        let answered = 0
        let choice = 0
        while (answered < count) {
          const callNext =
            called < count && (answered === called || choices[choice++ % choices.length] === true)
          if (callNext) entries.push({ kind: 'call', turn, step, callId: `c${turn}.${step}.${called++}` })
          else entries.push({ kind: 'result', turn, step, callId: `c${turn}.${step}.${answered++}` })
        }
      }),
    )
    return fc
      .array(fc.tuple(fc.nat(), fc.constantFrom('user/message', 'assistant/message', 'future/kind')), {
        maxLength: 4,
      })
      .map((noise) => {
        const out = [...entries]
        for (const [at, type] of noise) out.splice(at % (out.length + 1), 0, { kind: 'other', type })
        return out
      })
  })
