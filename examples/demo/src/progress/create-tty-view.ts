import type { Writable } from 'node:stream'
import { createLogUpdate } from 'log-update'
import pc from 'picocolors'
import type { BoardNotice, CallView, ModelView } from './call-board.ts'
import type { DemoView } from './demo-view.ts'
import { callHead, describeCallState } from './describe-call.ts'
import { describeModel, quoteText } from './describe-notice.ts'
import { fitLine } from './fit-line.ts'
import { formatDuration } from './format-duration.ts'
import { wrapWords } from './wrap-words.ts'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 80
const MAX_HEAD = 44
/** What a terminal that does not say its size is taken to be (what log-update assumes too). */
const DEFAULT_COLUMNS = 80
const DEFAULT_ROWS = 24

export interface TtyViewOptions {
  /** Its `columns` and `rows` are read at each frame (Node updates them when the terminal is resized). */
  readonly stream: Writable & { readonly isTTY?: boolean; readonly columns?: number; readonly rows?: number }
  /** The current step's calls and model step, read at each frame. */
  readonly calls: () => readonly CallView[]
  readonly model: () => ModelView | undefined
  readonly colors?: boolean
}

/**
 * Live progress on a terminal (log-update redraws a frame in place): the model step with a spinner,
 * then one line per call of the step, updated as it moves and with its time so far. At the end of
 * a step the frame stays on screen and the next one starts below. Story lines go above the frame.
 *
 * Every line of a frame fits the terminal's width (call lines are cut with `…`, the model's words
 * wrapped at word boundaries): a line the terminal wrapped would make the frame taller than
 * log-update counts on a resize, and a frame taller than the terminal is cut at the top while it
 * is redrawn. So the last frame of a step is written whole, as plain lines, into the scrollback.
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

  /** The columns a line may use: one less than the terminal's, as some terminals wrap at the last. */
  const columns = (): number => Math.max(1, (options.stream.columns || DEFAULT_COLUMNS) - 1)

  function frameLines(): string[] {
    const now = performance.now()
    const room = columns()
    const lines: string[] = []
    const model = options.model()
    if (model !== undefined) {
      const mark =
        model.durationMs === undefined ? colors.cyan(SPINNER[tick % SPINNER.length]!) : colors.green('✓')
      lines.push(`  ${mark} ${describeModel(model, colors, now)}`)
      for (const line of quoteText(model.text, colors, room - 4)) lines.push(`    ${line}`)
    }
    const calls = options.calls()
    // the heads line up in a column, never wider than 40% of the line: the state needs the rest
    const width = Math.min(
      MAX_HEAD,
      Math.max(8, Math.floor(room * 0.4)),
      Math.max(0, ...calls.map((call) => callHead(call).length)),
    )
    for (const call of calls) {
      const head = callHead(call)
      const shown = head.length > width ? `${head.slice(0, width - 1)}…` : head.padEnd(width)
      lines.push(`  ${symbol(call)} ${shown}  ${describeCallState(call, colors, now, room)}`)
    }
    return lines.map((line) => fitLine(line, room))
  }
  const frame = (): string => frameLines().join('\n')

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
    if (!paused) {
      const lines = frameLines()
      // log-update keeps only what fits the screen (it leaves one row for the cursor): a taller
      // frame is erased and written whole, so its first lines scroll into the scrollback
      if (lines.length >= (options.stream.rows || DEFAULT_ROWS)) {
        log.clear()
        options.stream.write(`${lines.join('\n')}\n`)
      } else log(lines.join('\n'))
    }
    log.done()
    active = false
    stopTimer()
  }

  const view: DemoView = {
    colors,
    notify(notice: BoardNotice) {
      switch (notice.kind) {
        case 'turn-start':
          if (notice.resumed) say(`Turn ${notice.turn} resumed`, colors.bold)
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
          say(
            `Turn ${notice.turn} ended: ${notice.reason} after ${notice.steps} step${notice.steps === 1 ? '' : 's'} in ${formatDuration(notice.durationMs)}`,
            colors.dim,
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
    columns,
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
  /** A line of the view's own prose, wrapped at word boundaries to the terminal's width. */
  const say = (text: string, paint: (line: string) => string): void => {
    for (const line of wrapWords(text, columns(), 2)) view.line(paint(line))
  }
  return view
}
