import type { Colors } from 'picocolors/types'
import type { BoardNotice } from './call-board.ts'

/** Where the demo's story and progress go: a live terminal, or plain appended lines. */
export interface DemoView {
  readonly colors: Colors
  notify(notice: BoardNotice): void
  /** A line of the story (headings, the model's words, the summary); kept above any live lines. */
  line(text: string): void
  /** The columns a line may use on a terminal; undefined off one (lines are never cut or wrapped). */
  columns(): number | undefined
  /** Stops drawing so a prompt can use the terminal; `resume` draws again. */
  pause(): void
  resume(): void
  /** Draws the last frame for good and stops any timer. */
  close(): void
}
