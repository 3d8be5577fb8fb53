import type { Colors } from 'picocolors/types'
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

/** The model's words, one `│ `-prefixed line each. */
export function quoteText(text: string, colors: Colors): string[] {
  return text === '' ? [] : text.split('\n').map((line) => colors.dim(`│ ${line}`))
}
