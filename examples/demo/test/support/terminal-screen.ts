import xterm from '@xterm/headless'

/** One row of a terminal's buffer, as a person reads it. */
export interface ScreenRow {
  /** The row's text, trailing blanks removed. */
  readonly text: string
  /** The terminal wrapped the line before it onto this row (it was wider than the terminal). */
  readonly wrapped: boolean
}

/**
 * What a terminal of `cols` × `rows` shows after receiving `raw`, scrollback included: the output
 * replayed through xterm.js (`@xterm/headless`, the emulator VS Code's terminal runs), a real
 * terminal's model of cursor movement, erasing, wrapping and scrolling. So what log-update erased
 * is gone, what scrolled away is in the scrollback, and a line the terminal had to wrap says so.
 */
export async function replayOnTerminal(raw: string, cols: number, rows: number): Promise<ScreenRow[]> {
  const terminal = new xterm.Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true })
  try {
    await new Promise<void>((resolve) => terminal.write(raw, resolve))
    const buffer = terminal.buffer.active
    const screen: ScreenRow[] = []
    for (let y = 0; y < buffer.length; y += 1) {
      const line = buffer.getLine(y)
      if (line !== undefined) screen.push({ text: line.translateToString(true), wrapped: line.isWrapped })
    }
    // the empty rows below the last output are not part of it
    while (screen.length > 0 && screen[screen.length - 1]!.text === '') screen.pop()
    return screen
  } finally {
    terminal.dispose()
  }
}
