import { utf8Length } from './text.ts'
import type { CodeLogEntry, CodeLogLevel } from './types.ts'

export interface OutputBudget {
  /** UTF-8 bytes still available. */
  remaining(): number
  /**
   * Records a log line costing its UTF-8 bytes plus one (so empty lines are not free). When it
   * does not fit, or `cut` says it is only the start of a longer line, keeps the prefix that fits,
   * spends the whole budget and returns false.
   */
  addLog(level: CodeLogLevel, text: string, options?: { readonly cut?: boolean }): boolean
  /** Spends `text`'s bytes if they fit; returns false (spending nothing) when they do not. */
  spend(text: string): boolean
}

/** Receives each kept line; `cut` when it is the start of a line the cap cut off. */
export type OutputLineSink = (entry: CodeLogEntry, cut: boolean) => void

const encoder = new TextEncoder()

/**
 * Tracks a run's output (logs and returned JSON) against one byte cap. The sandbox side and the
 * host side each keep one over the same lines, so both agree on where the cap falls.
 */
export function createOutputBudget(limitBytes: number, keep: OutputLineSink): OutputBudget {
  let used = 0
  return {
    remaining: () => limitBytes - used,
    addLog(level, text, options) {
      const room = limitBytes - used - 1
      const bytes = utf8Length(text)
      if (bytes <= room && options?.cut !== true) {
        used += bytes + 1
        keep({ level, text }, false)
        return true
      }
      if (room > 0) keep({ level, text: utf8Prefix(text, room) }, true)
      used = limitBytes
      return false
    },
    spend(text) {
      const bytes = utf8Length(text)
      if (bytes > limitBytes - used) return false
      used += bytes
      return true
    },
  }
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `bytes`, never splitting a character. */
function utf8Prefix(text: string, bytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(bytes))
  return text.slice(0, read)
}
