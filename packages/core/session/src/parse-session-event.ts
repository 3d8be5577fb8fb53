import { deepFreeze } from '@deepseek-ai/dsh-llm'
import { sessionEventProblem } from './session-event-problem.ts'
import type { SessionEvent } from './types.ts'

/** What `parseSessionEvent` found: the frozen event, or why the text is not the expected event. */
export type ParsedSessionEvent =
  { readonly ok: true; readonly event: SessionEvent } | { readonly ok: false; readonly problem: string }

/**
 * Reads back one event a store kept as text (`JSON.stringify(event)`, the form of a JSONL line
 * without its newline): parses it, checks that it is a well-formed event numbered `expectedSeq`
 * (unknown types and extra fields are kept as written) and deep-freezes it. For store authors; the
 * problem is phrased to follow a subject ("the event at seq 3 …").
 *
 * @example
 * parseSessionEvent('{"seq":1,"type":"note","time":"2024-01-01T00:00:00.000Z","data":1}', 1).ok // true
 */
export function parseSessionEvent(text: string, expectedSeq: number): ParsedSessionEvent {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return {
      ok: false,
      problem: `is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    }
  }
  const problem = sessionEventProblem(value, expectedSeq)
  if (problem !== undefined) return { ok: false, problem }
  return { ok: true, event: deepFreeze(value) as unknown as SessionEvent }
}
