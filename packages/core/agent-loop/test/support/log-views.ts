import fc from 'fast-check'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

/**
 * What an incremental reader of one session is handed, read after read, in the property tests of
 * `incrementalLogRead`'s readers: frozen prefixes of `log` (each as long as its `at`, modulo the
 * log's length), except read number `swapAt` (modulo the reads' count, one past them: none), which
 * gets a prefix of another log under the same session whose first `shared` events (modulo the log's
 * length plus one) are the very same objects and whose tail `tailOf(firstSeq)` makes.
 */
export function logViews(options: {
  readonly log: readonly SessionEvent[]
  readonly tailOf: (firstSeq: number) => readonly SessionEvent[]
  readonly shared: number
  readonly ats: readonly number[]
  readonly swapAt: number
}): (readonly SessionEvent[])[] {
  const { log, ats } = options
  const cut = log.length === 0 ? 0 : options.shared % (log.length + 1)
  const rewritten = [...log.slice(0, cut), ...options.tailOf(cut + 1)]
  const swap = options.swapAt % (ats.length + 1)
  return ats.map((at, i) => {
    const events = i === swap ? rewritten : log
    return Object.freeze(events.slice(0, events.length === 0 ? 0 : at % (events.length + 1)))
  })
}

/** What an event of a generated log is made from; `cites` becomes its `sourceEventSeqs`. */
export interface EventDraft {
  readonly type: string
  readonly data: unknown
  readonly cites?: number | undefined
}

/** Frozen events from `drafts`, numbered on from `first` (as a session hands them out). */
export const eventsOf = (drafts: readonly EventDraft[], first: number): SessionEvent[] =>
  drafts.map((draft, i) =>
    Object.freeze({
      seq: first + i,
      time: new Date(1_000 + i).toISOString(),
      type: draft.type,
      data: draft.data,
      ...(draft.cites === undefined ? {} : { sourceEventSeqs: [draft.cites] }),
    } as SessionEvent),
  )

/**
 * The reads one session's incremental reader gets, generated: `logViews` of a log of up to
 * `sizes.log` drafts, a swapped-in log with a tail of up to `sizes.tail`, and 1 to `sizes.reads`
 * reads.
 */
export function logViewsArbitrary(
  draft: fc.Arbitrary<EventDraft>,
  sizes: { readonly log: number; readonly tail: number; readonly reads: number },
): fc.Arbitrary<(readonly SessionEvent[])[]> {
  return fc
    .record({
      drafts: fc.array(draft, { maxLength: sizes.log }),
      tail: fc.array(draft, { maxLength: sizes.tail }),
      ats: fc.array(fc.nat(), { minLength: 1, maxLength: sizes.reads }),
      shared: fc.nat(),
      swapAt: fc.nat(),
    })
    .map(({ drafts, tail, ats, shared, swapAt }) =>
      logViews({
        log: eventsOf(drafts, 1),
        tailOf: (first) => eventsOf(tail, first),
        shared,
        ats,
        swapAt,
      }),
    )
}

/** What a read gives: its value, or the message of what it threw (a reader and its full read compare equal either way). */
export function readOutcome(read: () => unknown): { readonly value: unknown } | { readonly error: string } {
  try {
    return { value: read() }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}
