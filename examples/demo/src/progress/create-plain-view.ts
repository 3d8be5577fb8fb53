import pc from 'picocolors'
import type { BoardNotice } from './call-board.ts'
import type { DemoView } from './demo-view.ts'
import { callHead, describeCallState } from './describe-call.ts'
import { describeModel, quoteText } from './describe-notice.ts'
import { formatDuration } from './format-duration.ts'

/**
 * Progress as plain appended lines, no colour and no cursor movement, for logs and pipes (CI logs
 * stay readable): one line each time a call moves to another phase, one per model step.
 */
export function createPlainView(write: (line: string) => void): DemoView {
  const colors = pc.createColors(false)
  // a call is said to be queued once; waiting at a barrier or for a key, running, and its end each get a line
  const announced = new Set<string>()
  return {
    colors,
    notify(notice: BoardNotice) {
      switch (notice.kind) {
        case 'turn-start':
          if (notice.resumed) write(`Turn ${notice.turn} resumed`)
          return
        case 'model-start':
          write(`  ${describeModel(notice.model, colors)}`)
          return
        case 'model-end':
          write(`  ${describeModel(notice.model, colors)}`)
          for (const line of quoteText(notice.model.text, colors)) write(`  ${line}`)
          return
        case 'call': {
          const { call } = notice
          const key = `${call.turn}.${call.step}.${call.callId}`
          if (!notice.moved || (call.phase === 'queued' && announced.has(key))) return
          announced.add(key)
          write(`  ${callHead(call)} · ${describeCallState(call, colors)}`)
          return
        }
        case 'step-end':
          return
        case 'turn-end':
          write(
            `Turn ${notice.turn} ended: ${notice.reason} after ${notice.steps} step${notice.steps === 1 ? '' : 's'} in ${formatDuration(notice.durationMs)}`,
          )
          return
        default: {
          const never: never = notice
          return never
        }
      }
    },
    line: write,
    columns: () => undefined,
    pause() {},
    resume() {},
    close() {},
  }
}
