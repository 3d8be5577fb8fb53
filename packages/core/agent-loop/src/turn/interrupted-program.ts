import { textOf } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

/** How much of one nested call's result the summary quotes. */
const QUOTED_CHARS = 300
/** How many nested calls the summary lists before it only counts the rest. */
const LISTED_CALLS = 20

interface NestedOutcome {
  readonly callId: string
  readonly name: string
  /** `'OK'`, or the error code of its result; undefined while it has none. */
  code: string | undefined
  text: string
  /** Its result was recorded at or after `resumedFrom`. */
  onResume: boolean
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= QUOTED_CHARS ? flat : `${flat.slice(0, QUOTED_CHARS - 1)}…`
}

/**
 * The nested calls a `run_code` call's program made, as the log holds them (T63), or undefined
 * when it made none: name, outcome and the text of its result.
 */
function nestedOutcomes(
  events: readonly SessionEvent[],
  outerCallId: string,
  resumedFrom: number,
): NestedOutcome[] | undefined {
  const byId = new Map<string, NestedOutcome>()
  for (const event of events) {
    const data = event.data as Record<string, unknown> | null
    if (event.type === 'tool/call' && data?.parentCallId === outerCallId && typeof data.callId === 'string') {
      const name = typeof data.name === 'string' ? data.name : '?'
      byId.set(data.callId, { callId: data.callId, name, code: undefined, text: '', onResume: false })
    } else if (event.type === 'tool/result' && byId.size > 0) {
      const block = (data?.message as { content?: readonly Record<string, unknown>[] } | undefined)
        ?.content?.[0]
      const entry = typeof block?.callId === 'string' ? byId.get(block.callId) : undefined
      if (entry === undefined || entry.code !== undefined) continue
      const error = data?.error as { code?: unknown } | undefined
      entry.code = typeof error?.code === 'string' ? error.code : 'OK'
      const content = block?.content
      entry.text = Array.isArray(content) ? textOf(content as { type: string; text?: string }[]) : ''
      entry.onResume = event.seq >= resumedFrom
    }
  }
  return byId.size === 0 ? undefined : [...byId.values()]
}

/**
 * T63: the answer to a `run_code` call whose program stopped with the process. The program is not
 * run again (its continuation is gone), so the call is `INTERRUPTED`; its message says what each of
 * the program's calls did — the ones answered before the crash and the ones the resume answered
 * (run, re-run with the same key, re-attached or interrupted) — so the model can tell which effects
 * happened before it decides what to do again. Undefined when the program made no call.
 */
export function interruptedProgramMessage(options: {
  readonly events: readonly SessionEvent[]
  readonly callId: string
  readonly name: string
  /** The first seq the resume appended: results from there on were answered by it. */
  readonly resumedFrom: number
}): string | undefined {
  const { events, callId, name, resumedFrom } = options
  const calls = nestedOutcomes(events, callId, resumedFrom)
  if (calls === undefined) return undefined
  const lines = calls.slice(0, LISTED_CALLS).map((call) => {
    const when = call.onResume ? ' (answered on resume)' : ''
    const what = call.code === 'OK' ? 'returned' : (call.code ?? 'no result')
    const text = clip(call.text)
    return `- tools.${call.name} (call ${call.callId})${when}: ${what}${text === '' ? '' : `: ${text}`}`
  })
  if (calls.length > LISTED_CALLS) lines.push(`- … and ${calls.length - LISTED_CALLS} more calls`)
  return [
    `Tool call "${name}" was interrupted: the process stopped while its program ran, and the session was resumed; the program was not run again. Its calls:`,
    ...lines,
  ].join('\n')
}
