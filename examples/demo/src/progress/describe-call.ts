import type { Colors } from 'picocolors/types'
import type { CallView } from './call-board.ts'
import { approvalTime } from './approval-time.ts'
import { formatDuration } from './format-duration.ts'

const MAX_TEXT = 110

function clip(text: string, max: number): string {
  const line = text.split('\n')[0] ?? ''
  const more = line.length < text.length
  return line.length > max ? `${line.slice(0, max - 1)}…` : more ? `${line} …` : line
}

/** `#3 read_doc pipeline.md`: the call's number in its step and its label. */
export function callHead(call: CallView): string {
  return `#${call.number} ${call.label}`
}

/**
 * `ran 12 ms`, or with the time a person took to answer taken out of the run time (which the loop
 * measures from start to settled, the approval stage included) and said apart:
 * `ran 1 ms + 8.0 s waiting for approval`. The run time comes first: a line cut to the terminal's
 * width keeps it.
 */
function describeRun(call: CallView, runMs: number): string {
  const { own, nested } = approvalTime(call)
  if (own + nested <= 0) return `ran ${formatDuration(runMs)}`
  const whose = nested <= 0 ? 'approval' : own <= 0 ? 'a nested call’s approval' : 'approvals'
  return `ran ${formatDuration(Math.max(0, runMs - own - nested))} + ${formatDuration(own + nested)} waiting for ${whose}`
}

/**
 * What a call is doing, in words: where it waits or runs (with how long so far, given `now`; the
 * time spent waiting for a person is shown as such, never as running), or how it ended and how long
 * each phase took, then its result cut to `maxText` characters. Coloured with `colors` (a no-op set
 * off a terminal).
 */
export function describeCallState(call: CallView, colors: Colors, now?: number, maxText = MAX_TEXT): string {
  const since = (at: number | undefined): string =>
    now === undefined || at === undefined ? '' : colors.dim(` ${formatDuration(now - at)}`)
  const approval = call.approval === undefined ? '' : `, ${call.approval}`
  switch (call.phase) {
    case 'queued':
      return colors.dim(`queued (${call.detail})`) + since(call.queuedAt)
    case 'barrier':
      return colors.yellow(`waiting at barrier (${call.detail})`) + since(call.queuedAt)
    case 'key':
      return colors.yellow(`waiting for key ${call.detail}`) + since(call.queuedAt)
    case 'approval':
      return (
        colors.magenta('waiting for approval') +
        since(call.approvalWaits.find((wait) => wait.to === undefined)?.from ?? call.startedAt)
      )
    case 'running': {
      // how long it has run, the time it waited for a person left out
      let ran = ''
      if (now !== undefined && call.startedAt !== undefined) {
        const waited = approvalTime(call, now)
        ran = colors.dim(` ${formatDuration(now - call.startedAt - waited.own - waited.nested)}`)
      }
      return (
        colors.cyan(
          call.slot === undefined
            ? `running alone (barrier)${approval}`
            : `running in pool slot ${call.slot}${approval}`,
        ) + ran
      )
    }
    case 'settled':
      return colors.blue('done, waiting to commit in model order') + since(call.settledAt)
    case 'committed': {
      const result = call.result
      const timings = call.timings
      const took =
        timings === undefined ? '' : call.started ? describeRun(call, timings.runMs) : 'never started'
      const queued =
        timings === undefined || timings.queueMs < 1 ? '' : `, queued ${formatDuration(timings.queueMs)}`
      if (result === undefined) return colors.red('committed without a result')
      if (result.ok)
        return `${colors.green('ok')} ${colors.dim(`(${took}${queued}${approval})`)} → ${clip(result.text, maxText)}`
      const code = result.code ?? 'ERROR'
      const paint =
        code === 'ABORTED' || code === 'ABORTED_BEFORE_DISPATCH' || code === 'INTERRUPTED'
          ? colors.yellow
          : colors.red
      // who decided stays on the final line whatever the outcome ("denied by you" reads better than nothing)
      return `${paint(code)} ${colors.dim(`(${took}${queued}${approval})`)} → ${clip(result.text, maxText)}`
    }
    default: {
      const never: never = call.phase
      return String(never)
    }
  }
}
