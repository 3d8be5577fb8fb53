import { DEFAULT_MAX_DEPTH } from './snapshot-json-value.ts'
import { SnapshotWalker, snapshotPrimitive, type SnapshotResult } from './snapshot-walker.ts'

export interface JsonSnapshotterOptions {
  /** Deepest allowed nesting of objects/arrays; the top-level container is level 1. Default 1000. */
  readonly maxDepth?: number
  /** Deep-freeze every copy as it is made (default `false`). */
  readonly freeze?: boolean
  /**
   * Remember each frozen copy, so a later frozen snapshot or `deepFreeze` that meets it takes it by
   * reference (default: `freeze`). A store that freezes every value it keeps, but never meets those
   * values again as input, passes `false` to keep the table small.
   */
  readonly remember?: boolean
}

/** `snapshotJsonValue` with options fixed once: what a hot path (a session `append`) calls per value. */
export type JsonSnapshotter = (value: unknown) => SnapshotResult

/**
 * A `snapshotJsonValue` with fixed options that reuses one walker from call to call (its stack and
 * its table of visited containers), so a value snapshotted on a hot path allocates only its copy.
 * A getter that takes a snapshot while one is running gets a walker of its own.
 *
 * Options are trusted (no checks): this is the building block of stores, not an entry for user input.
 */
export function createJsonSnapshotter(options: JsonSnapshotterOptions = {}): JsonSnapshotter {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH
  const freeze = options.freeze === true
  const remember = options.remember ?? freeze
  const walker = new SnapshotWalker(maxDepth, freeze, remember)
  return (value) => {
    // A primitive needs no walker (and no walker's reset): what `snapshotJsonValue` does too.
    if (typeof value !== 'object' || value === null) return snapshotPrimitive(value)
    return (walker.idle ? walker : new SnapshotWalker(maxDepth, freeze, remember)).run(value)
  }
}
