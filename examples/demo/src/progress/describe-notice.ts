import type { Colors } from 'picocolors/types'
import wrapAnsi from 'wrap-ansi'
import type { ModelView } from './call-board.ts'
import { formatDuration } from './format-duration.ts'

/** The model step's line: writing (with how long so far) or how it ended. */
export function describeModel(model: ModelView, colors: Colors, now?: number): string {
  if (model.durationMs === undefined) {
    const so = now === undefined ? '' : colors.dim(` ${formatDuration(now - model.startedAt)}`)
    return `model is writing step ${model.turn}.${model.step}…${so}`
  }
  const took = formatDuration(model.durationMs)
  switch (model.outcome) {
    case 'ok':
      return `model answered in ${took}${model.calls > 0 ? ` with ${model.calls} tool call${model.calls === 1 ? '' : 's'}` : ''}`
    case 'aborted':
      return colors.yellow(`model step stopped after ${took} (interrupted)`)
    case 'error':
      return colors.red(`model step failed after ${took}`)
    case undefined:
      return `model step ended after ${took}`
    default: {
      const never: never = model.outcome
      return String(never)
    }
  }
}

/**
 * The model's words, one `│ `-prefixed line each; given `width` (terminal columns for the whole
 * quoted line), each line is wrapped at word boundaries to fit it (a word longer than that is
 * broken), so the terminal never wraps one itself.
 */
export function quoteText(text: string, colors: Colors, width?: number): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  const room = width === undefined ? undefined : Math.max(8, width - 2)
  return lines.flatMap((line) =>
    (room === undefined || line === ''
      ? [line]
      : wrapAnsi(line, room, { hard: true, trim: true }).split('\n')
    ).map((part) => colors.dim(`│ ${part}`)),
  )
}
