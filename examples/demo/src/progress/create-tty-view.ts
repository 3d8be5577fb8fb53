import type { Writable } from 'node:stream'
import { createLogUpdate } from 'log-update'
import pc from 'picocolors'
import type { BoardNotice, CallView, ModelView } from './call-board.ts'
import type { DemoView } from './demo-view.ts'
import { callHead, describeCallState } from './describe-call.ts'
import { describeModel, quoteText } from './describe-notice.ts'
import { formatDuration } from './format-duration.ts'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 80
const MAX_HEAD = 44
/** Roughly what a finished call's line holds before its result text: mark, outcome, times, arrow. */
const STATE_ROOM = 62

export interface TtyViewOptions {
  readonly stream: Writable & { readonly isTTY?: boolean; readonly columns?: number }
  /** The current step's calls and model step, read at each frame. */
  readonly calls: () => readonly CallView[]
  readonly model: () => ModelView | undefined
  readonly colors?: boolean
}

/**
 * Live progress on a terminal (log-update redraws a frame in place): the model step with a spinner,
 * then one line per call of the step, updated as it moves and with its time so far. At the end of
 * a step the frame stays on screen and the next one starts below. Story lines go above the frame.
 */
export function createTtyView(options: TtyViewOptions): DemoView {
  const colors = pc.createColors(options.colors ?? pc.isColorSupported)
  const log = createLogUpdate(options.stream)
  let active = false
  let paused = false
  let tick = 0
  let timer: ReturnType<typeof setInterval> | undefined

  const symbol = (call: CallView): string => {
    switch (call.phase) {
      case 'queued':
        return colors.dim('·')
      case 'barrier':
      case 'key':
      case 'approval':
        return colors.yellow('‖')
      case 'running':
        return colors.cyan(SPINNER[tick % SPINNER.length]!)
      case 'settled':
        return colors.blue('•')
      case 'committed':
        return call.result?.ok === true ? colors.green('✓') : colors.red('✗')
      default: {
        const never: never = call.phase
        return String(never)
      }
    }
  }

  function frame(): string {
    const now = performance.now()
    const lines: string[] = []
    const model = options.model()
    if (model !== undefined) {
      const mark =
        model.durationMs === undefined ? colors.cyan(SPINNER[tick % SPINNER.length]!) : colors.green('✓')
      lines.push(`  ${mark} ${describeModel(model, colors, now)}`)
      for (const line of quoteText(model.text, colors)) lines.push(`    ${line}`)
    }
    const calls = options.calls()
    const width = Math.min(MAX_HEAD, Math.max(0, ...calls.map((call) => callHead(call).length)))
    // the result text is cut so that a line fits the terminal (a wrapped line still works, but reads worse)
    const maxText = Math.max(16, (options.stream.columns ?? 100) - 4 - width - STATE_ROOM)
    for (const call of calls) {
      const head = callHead(call)
      const shown = head.length > width ? `${head.slice(0, width - 1)}…` : head.padEnd(width)
      lines.push(`  ${symbol(call)} ${shown}  ${describeCallState(call, colors, now, maxText)}`)
    }
    return lines.join('\n')
  }

  const render = (): void => {
    if (active && !paused) log(frame())
  }
  const startTimer = (): void => {
    timer ??= setInterval(() => {
      tick += 1
      render()
    }, FRAME_MS)
    timer.unref()
  }
  const stopTimer = (): void => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }
  /** Leaves the current frame on screen for good. */
  const settle = (): void => {
    if (!active) return
    if (!paused) log(frame())
    log.done()
    active = false
    stopTimer()
  }

  return {
    colors,
    notify(notice: BoardNotice) {
      switch (notice.kind) {
        case 'turn-start':
          if (notice.resumed) this.line(colors.bold(`Turn ${notice.turn} resumed`))
          return
        case 'model-start':
          active = true
          startTimer()
          render()
          return
        case 'model-end':
        case 'call':
          render()
          return
        case 'step-end':
          settle()
          return
        case 'turn-end':
          settle()
          this.line(
            colors.dim(
              `Turn ${notice.turn} ended: ${notice.reason} after ${notice.steps} step${notice.steps === 1 ? '' : 's'} in ${formatDuration(notice.durationMs)}`,
            ),
          )
          return
        default: {
          const never: never = notice
          return never
        }
      }
    },
    line(text: string) {
      if (active && !paused) {
        log.persist(text)
        render()
      } else {
        options.stream.write(`${text}\n`)
      }
    },
    pause() {
      if (active && !paused) log.clear()
      paused = true
    },
    resume() {
      paused = false
      render()
    },
    close() {
      settle()
    },
  }
}
